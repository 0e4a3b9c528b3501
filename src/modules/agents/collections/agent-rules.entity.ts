import { Column, Entity } from 'typeorm';
import { AgentChildEntity } from './agent-child.entity';

export const DETECTION_MODES = ['exact', 'intent', 'both'] as const;
export type DetectionMode = (typeof DETECTION_MODES)[number];
export const DESTINATION_TYPES = ['extension', 'phone_number', 'agent'] as const;
export const TRANSFER_TYPES = ['transfer_call', 'warm_transfer'] as const;
export const GUARD_ACTIONS = ['forward', 'end_conversation'] as const;
export type GuardAction = (typeof GUARD_ACTIONS)[number];
/** The conversation channels a guard can be limited to. */
export const RULE_CHANNELS = [
  'phone',
  'sms',
  'whatsapp',
  'whatsapp_call',
  'messenger',
  'instagram',
  'chat',
  'web',
] as const;
export type RuleChannel = (typeof RULE_CHANNELS)[number];

@Entity('agent_routing_rules')
export class RoutingRule extends AgentChildEntity {
  @Column('varchar', { length: 10 }) detectionMode!: DetectionMode;
  @Column('text', { nullable: true }) triggerKeyword!: string | null;
  @Column('text', { nullable: true }) departmentName!: string | null;
  @Column('jsonb', { default: () => `'[]'` }) phrases!: string[];
  @Column('text', { nullable: true }) aiPrompt!: string | null;
  @Column('text', { nullable: true }) voiceResponse!: string | null;
  @Column('text', { nullable: true }) voiceOnError!: string | null;
  @Column('text', { nullable: true }) voiceOnSuccess!: string | null;
  @Column('varchar', { length: 30, nullable: true }) destinationType!: string | null;
  @Column('text', { nullable: true }) destination!: string | null;
  @Column('uuid', { nullable: true }) destinationAgentId!: string | null;
  @Column('varchar', { length: 30, nullable: true }) transferType!: string | null;
  @Column('jsonb', { default: () => `'{}'` }) transferConfig!: Record<string, unknown>;
  @Column('integer') priority!: number;
  @Column('boolean', { default: true }) isActive!: boolean;
}

@Entity('agent_guard_rules')
export class GuardRule extends AgentChildEntity {
  @Column('text', { nullable: true }) name!: string | null;
  @Column('text', { nullable: true }) whenCondition!: string | null;
  @Column('jsonb', { default: () => `'[]'` }) examplePhrases!: string[];
  @Column('varchar', { length: 30 }) thenAction!: GuardAction;
  @Column('jsonb', { default: () => `'[]'` }) selectedChannels!: RuleChannel[];
  @Column('text', { nullable: true }) sayBeforeForwarding!: string | null;
  @Column('text', { nullable: true }) sayBeforeEnd!: string | null;
  @Column('varchar', { length: 30, nullable: true }) destinationType!: string | null;
  @Column('text', { nullable: true }) destination!: string | null;
  @Column('uuid', { nullable: true }) destinationAgentId!: string | null;
  @Column('boolean', { default: true }) isActive!: boolean;
  @Column('boolean', { default: false }) isDefault!: boolean;
}
