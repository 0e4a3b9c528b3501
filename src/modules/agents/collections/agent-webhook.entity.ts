import { Column, Entity } from 'typeorm';
import { WebhookSubscription } from '@/modules/events/webhook-subscription.entity';

export const MAX_WEBHOOKS_PER_AGENT = 5;

/**
 * An agent webhook: its agent's events. A row the agent holds (an agent collection, deleted with the agent), so it
 * has the shape of `AgentChildEntity`, with the columns of a workspace webhook (`WebhookSubscription`, the events
 * module's); only `has_secret` ever leaves the service.
 */
@Entity('agent_webhooks')
export class AgentWebhook extends WebhookSubscription {
  @Column('uuid') agentId!: string;
}
