/** The event types a webhook (of the workspace or of one agent) may subscribe to. */
export const WEBHOOK_EVENTS = [
  'conversation_status',
  'conversation_update',
  'conversation_end_report',
  'voice_evaluation',
  'text_evaluation',
  'intent_call',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
