import { declarePort } from '@/modules/ports';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { WebhookEvent } from './webhook-events';

/**
 * An agent's webhooks as delivery needs them. Agent webhooks are an agent collection (the agents module holds
 * them); this module declares what it reads of them and PortBindingsModule binds the agents module's
 * implementation. The only place a webhook secret leaves its sealed form: never log what it answers.
 */
export const AGENT_WEBHOOK_TARGETS = declarePort('AGENT_WEBHOOK_TARGETS', 'events');

export interface DeliverableWebhook {
  id: string;
  url: string;
  events: WebhookEvent[];
  /** The signing secret in clear, or null when none is set. */
  secret: string | null;
}

/** An agent webhook as the sender needs it: its live secrets in clear (current first). */
export interface SendableWebhook {
  id: string;
  agentId: string;
  url: string;
  events: WebhookEvent[];
  isActive: boolean;
  secrets: string[];
}

export interface AgentWebhookTargets {
  /** The agent's active webhooks subscribed to an event, with their secrets opened, for delivery. */
  activeWebhooks(
    workspaceId: WorkspaceId,
    agentId: string,
    event: WebhookEvent,
  ): Promise<DeliverableWebhook[]>;
  /** One agent webhook by its id, with its live secrets opened (current first), for sending; null when gone. */
  deliverableWebhook(workspaceId: WorkspaceId, webhookId: string): Promise<SendableWebhook | null>;
  /** Turns a webhook off (its receiver answered 410 Gone). */
  disableWebhook(workspaceId: WorkspaceId, webhookId: string): Promise<void>;
}
