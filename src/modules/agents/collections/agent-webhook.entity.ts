import { Column, Entity } from 'typeorm';
import { AgentChildEntity } from './agent-child.entity';

export const WEBHOOK_EVENTS = [
  'conversation_status',
  'conversation_update',
  'conversation_end_report',
  'voice_evaluation',
  'text_evaluation',
  'intent_call',
  'campaign_status',
  'task_status',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
export const MAX_WEBHOOKS_PER_AGENT = 5;

/** An agent webhook. The secret is sealed with the SecretBox; only `has_secret` ever leaves the service. */
@Entity('agent_webhooks')
export class AgentWebhook extends AgentChildEntity {
  @Column('varchar', { length: 2048 }) url!: string;
  @Column('text', { array: true }) events!: WebhookEvent[];
  @Column('boolean', { default: true }) isActive!: boolean;
  @Column('text', { nullable: true }) secretCiphertext!: string | null;
  /** The secret replaced by the last rotation, still signing until `previousSecretExpiresAt`. */
  @Column('text', { nullable: true }) previousSecretCiphertext!: string | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) previousSecretExpiresAt!: Date | null;
}
