import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { newId } from '@/common/persistence/base.entity';

export interface EvaluationRow {
  agent_id: string | null;
  is_override: boolean;
  settings: Record<string, unknown> | null;
  version: string;
  updated_at: Date;
}

/** One advisory lock per workspace for every settings change (evaluation and memorize): first-PUT creation races. */
export async function lockSettings(workspaceId: string, manager: EntityManager): Promise<void> {
  await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 7))`, [workspaceId]);
}

/**
 * Evaluation settings rows: the workspace default (agent_id NULL) and per-agent overrides. Every write takes a
 * new number from one sequence, so versions only grow.
 */
@Injectable()
export class EvaluationSettingsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private q(manager?: EntityManager): EntityManager {
    return manager ?? this.dataSource.manager;
  }

  /** The default row and the agent's row (if any) of one workspace. */
  async evaluationRows(
    workspaceId: string,
    agentId: string | null,
    manager?: EntityManager,
  ): Promise<{ def: EvaluationRow | null; agent: EvaluationRow | null }> {
    const rows = (await this.q(manager).query(
      `SELECT agent_id, is_override, settings, version, updated_at FROM evaluation_settings
        WHERE workspace_id = $1 AND (agent_id IS NULL OR agent_id = $2)`,
      [workspaceId, agentId],
    )) as EvaluationRow[];
    return {
      def: rows.find((r) => r.agent_id === null) ?? null,
      agent: agentId ? (rows.find((r) => r.agent_id === agentId) ?? null) : null,
    };
  }

  async saveEvaluation(
    workspaceId: string,
    agentId: string | null,
    settings: Record<string, unknown> | null,
    manager?: EntityManager,
  ): Promise<void> {
    const target = agentId
      ? '(workspace_id, agent_id) WHERE agent_id IS NOT NULL'
      : '(workspace_id) WHERE agent_id IS NULL';
    await this.q(manager).query(
      `INSERT INTO evaluation_settings (id, workspace_id, agent_id, is_override, settings)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT ${target} DO UPDATE
         SET is_override = EXCLUDED.is_override, settings = EXCLUDED.settings,
             version = nextval('evaluation_settings_version_seq'), updated_at = now()`,
      [newId(), workspaceId, agentId, settings !== null, settings === null ? null : JSON.stringify(settings)],
    );
  }

  lockWorkspace(workspaceId: string, manager: EntityManager): Promise<void> {
    return lockSettings(workspaceId, manager);
  }
}
