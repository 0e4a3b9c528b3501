import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { agentChildRepository } from './agent-child.repository';
import { AgentIntent } from './agent-intent.entity';
import { AgentNote } from './agent-note.entity';
import { AgentProcedure } from './agent-procedure.entity';
import { GuardRule, RoutingRule } from './agent-rules.entity';
import { AgentTraining } from './agent-training.entity';

@Injectable()
export class AgentNotesRepository extends agentChildRepository(AgentNote) {}

@Injectable()
export class AgentTrainingRepository extends agentChildRepository(AgentTraining) {}

@Injectable()
export class AgentProceduresRepository extends agentChildRepository(AgentProcedure) {
  /** Steps that called a removed intent become plain conversation steps. */
  async detachIntents(
    workspaceId: WorkspaceId,
    agentId: string,
    removed: string[],
    manager: EntityManager,
  ): Promise<void> {
    if (!removed.length) return;
    await manager.query(
      `UPDATE agent_procedures p
          SET steps = (SELECT coalesce(jsonb_agg(CASE WHEN s->>'intent_uuid' = ANY($3)
                                                      THEN jsonb_set(s, '{intent_uuid}', 'null') ELSE s END
                                                 ORDER BY i), '[]'::jsonb)
                         FROM jsonb_array_elements(p.steps) WITH ORDINALITY AS e(s, i)),
              updated_at = now()
        WHERE p.workspace_id = $1 AND p.agent_id = $2
          AND EXISTS (SELECT 1 FROM jsonb_array_elements(p.steps) s WHERE s->>'intent_uuid' = ANY($3))`,
      [workspaceId, agentId, removed],
    );
  }
}

@Injectable()
export class AgentIntentsRepository extends agentChildRepository(AgentIntent) {}

@Injectable()
export class RoutingRulesRepository extends agentChildRepository(RoutingRule) {}

@Injectable()
export class GuardRulesRepository extends agentChildRepository(GuardRule) {}
