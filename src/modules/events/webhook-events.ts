import { EVENT_TYPES, EventType } from './outbox-event.entity';

/** A webhook (of the workspace or of one agent) subscribes to some of the outbox's event types. */
export const WEBHOOK_EVENTS = EVENT_TYPES;
export type WebhookEvent = EventType;
