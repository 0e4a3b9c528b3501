import { Entity } from 'typeorm';
import { WebhookSubscription } from './webhook-subscription.entity';

/** A workspace webhook: every agent's events. */
@Entity('webhooks')
export class Webhook extends WebhookSubscription {}
