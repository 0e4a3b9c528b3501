import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { newId } from '@/common/persistence/base.entity';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { ActionConfig, ActionType, IntentAction } from './intent-action.entity';

@Injectable()
export class IntentActionsRepository extends WorkspaceScopedRepository<IntentAction> {
  constructor(@InjectRepository(IntentAction) repo: Repository<IntentAction>) {
    super(repo);
  }

  forIntent(workspaceId: WorkspaceId, intentId: string, m?: EntityManager): Promise<IntentAction | null> {
    return this.findOne(workspaceId, { intentId }, {}, m);
  }

  /** The intent's action, locked for a transition. */
  lockForIntent(workspaceId: WorkspaceId, intentId: string, m: EntityManager): Promise<IntentAction | null> {
    return this.query(workspaceId, 'a', m)
      .andWhere('a.intent_id = :intentId', { intentId })
      .setLock('pessimistic_write')
      .getOne();
  }

  /** Sets the intent's one action: created or replaced, always as a draft (concurrent writes: the last wins). */
  async upsert(
    workspaceId: WorkspaceId,
    action: { agentId: string; intentId: string; type: ActionType; config: ActionConfig },
    m?: EntityManager,
  ): Promise<void> {
    await this.sql(
      `INSERT INTO intent_actions (id, workspace_id, agent_id, intent_id, type, status, config)
       VALUES ($1, $2, $3, $4, $5, 'draft', $6)
       ON CONFLICT (intent_id) DO UPDATE
         SET type = EXCLUDED.type, status = 'draft', config = EXCLUDED.config, updated_at = now()
         WHERE intent_actions.workspace_id = $2`,
      [newId(), workspaceId, action.agentId, action.intentId, action.type, JSON.stringify(action.config)],
      m,
    );
  }

  /** The deployed actions of an agent's intents, by intent id. */
  async deployedOf(workspaceId: WorkspaceId, agentId: string): Promise<Map<string, IntentAction>> {
    const rows = await this.find(workspaceId, { where: { agentId, status: 'deployed' } });
    return new Map(rows.map((r) => [r.intentId, r]));
  }
}
