import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';

export const ACTION_TYPES = ['webhook', 'agent', 'scenario', 'app'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];
export type ActionStatus = 'draft' | 'deployed';

/** The stored configuration of each kind; only the keys of its kind are kept. */
export interface ActionConfig {
  url?: string;
  auth_token?: string | null;
  agent_uuid?: string;
  flow_uuid?: string;
  app?: 'tables';
  action?: 'ai_query';
  table_uuid?: string;
  max_results?: number;
  query_description?: string | null;
}

/** An intent's one action (`PUT /agents/{uuid}/intents/{intentUuid}/event`); only a deployed one runs. */
@Entity('intent_actions')
export class IntentAction extends WorkspaceOwnedEntity {
  @Column('uuid') agentId!: string;
  @Column('uuid') intentId!: string;
  @Column('varchar', { length: 10 }) type!: ActionType;
  @Column('varchar', { length: 10 }) status!: ActionStatus;
  @Column('jsonb', { default: () => `'{}'` }) config!: ActionConfig;
}
