import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';
import type { ActionConfig, ActionType } from '@/modules/runtime/tools/intent-actions.port';

/** The kinds of action and their stored configuration, as the runtime's tools carry a deployed one. */
export type { ActionConfig, ActionType };
export { ACTION_TYPES } from '@/modules/runtime/tools/intent-actions.port';
export type ActionStatus = 'draft' | 'deployed';

/** An intent's one action (`PUT /agents/{uuid}/intents/{intentUuid}/event`); only a deployed one runs. */
@Entity('intent_actions')
export class IntentAction extends WorkspaceOwnedEntity {
  @Column('uuid') agentId!: string;
  @Column('uuid') intentId!: string;
  @Column('varchar', { length: 10 }) type!: ActionType;
  @Column('varchar', { length: 10 }) status!: ActionStatus;
  @Column('jsonb', { default: () => `'{}'` }) config!: ActionConfig;
}
