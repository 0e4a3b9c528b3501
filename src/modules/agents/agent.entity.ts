import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';

export const AGENT_STATUSES = ['pending', 'ready', 'in_progress', 'paused', 'completed'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/** The free-text profile fields of an agent, as the specification names them. */
export const AGENT_TEXT_FIELDS = [
  'description',
  'companyName',
  'role',
  'objective',
  'tone',
  'behaviorGuidelines',
  'companyService',
  'topic',
  'lengthDetail',
  'interestOfProduct',
  'negativeResponse',
  'customPrompt',
  'language',
  'speed',
  'timezone',
  'customLlmUrl',
  'recommendations',
] as const;

export interface AgentSettings {
  voice: Record<string, unknown>;
  text: Record<string, unknown>;
  memorize: Record<string, unknown>;
  evaluation: Record<string, unknown>;
}

/** An AI agent: its profile. Its knowledge, rules, webhooks and bindings live in their own tables. */
@Entity('agents')
export class Agent extends WorkspaceOwnedEntity {
  @Column('varchar', { length: 200 }) name!: string;
  @Column('text', { nullable: true }) description!: string | null;
  @Column('text', { nullable: true }) companyName!: string | null;
  @Column('text', { nullable: true }) role!: string | null;
  @Column('text', { nullable: true }) objective!: string | null;
  @Column('text', { nullable: true }) tone!: string | null;
  @Column('text', { nullable: true }) behaviorGuidelines!: string | null;
  @Column('text', { nullable: true }) companyService!: string | null;
  @Column('text', { nullable: true }) topic!: string | null;
  @Column('text', { nullable: true }) lengthDetail!: string | null;
  @Column('text', { nullable: true }) interestOfProduct!: string | null;
  @Column('text', { nullable: true }) negativeResponse!: string | null;
  @Column('text', { nullable: true }) customPrompt!: string | null;
  @Column('text', { nullable: true }) language!: string | null;
  @Column('text', { nullable: true }) speed!: string | null;
  @Column('text', { nullable: true }) timezone!: string | null;
  @Column('text', { nullable: true }) customLlmUrl!: string | null;
  @Column('text', { nullable: true }) recommendations!: string | null;
  @Column('varchar', { length: 20, default: 'pending' }) status!: AgentStatus;
  @Column('boolean', { default: false }) appointmentSchedulingEnabled!: boolean;
  @Column('boolean', { default: false }) appointmentSchedulingRandomly!: boolean;
  @Column('jsonb', { default: () => `'{"voice":{},"text":{},"memorize":{},"evaluation":{}}'` })
  settings!: AgentSettings;
}
