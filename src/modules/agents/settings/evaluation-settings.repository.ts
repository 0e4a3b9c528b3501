import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { newId } from '@/common/persistence/base.entity';
import { SettingsRowsRepository } from '@/common/persistence/settings-rows.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';

export interface EvaluationRow {
  agent_id: string | null;
  is_override: boolean;
  settings: Record<string, unknown> | null;
  version: string;
  updated_at: Date;
}

/** Evaluation settings rows. Every write takes a new number from one sequence, so versions only grow. */
@Injectable()
export class EvaluationSettingsRepository extends SettingsRowsRepository {
  /**
   * The default's and the agent's rows as a JSON array, correlated with an `agents a` row: the agents read model
   * places it in its statement so that a turn reads the agent and its settings in one round trip.
   */
  static readonly AGENT_VIEW_SUB_SELECT = `
    SELECT coalesce(json_agg(json_build_object('agent_id', e.agent_id, 'is_override', e.is_override,
             'settings', e.settings, 'version', e.version::text, 'updated_at', e.updated_at)), '[]'::json)
      FROM evaluation_settings e
     WHERE e.workspace_id = a.workspace_id AND (e.agent_id IS NULL OR e.agent_id = a.id)`;

  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource);
  }

  evaluationRows(
    workspaceId: WorkspaceId,
    agentId: string | null,
    manager?: EntityManager,
  ): Promise<{ def: EvaluationRow | null; agent: EvaluationRow | null }> {
    return this.defaultAndAgent<EvaluationRow>(
      `SELECT agent_id, is_override, settings, version, updated_at FROM evaluation_settings
        WHERE workspace_id = $1 AND (agent_id IS NULL OR agent_id = $2)`,
      workspaceId,
      agentId,
      manager,
    );
  }

  async saveEvaluation(
    workspaceId: WorkspaceId,
    agentId: string | null,
    settings: Record<string, unknown> | null,
    manager?: EntityManager,
  ): Promise<void> {
    await this.q(manager).query(
      `INSERT INTO evaluation_settings (id, workspace_id, agent_id, is_override, settings)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT ${this.conflictTarget(agentId)} DO UPDATE
         SET is_override = EXCLUDED.is_override, settings = EXCLUDED.settings,
             version = nextval('evaluation_settings_version_seq'), updated_at = now()`,
      [newId(), workspaceId, agentId, settings !== null, settings === null ? null : JSON.stringify(settings)],
    );
  }
}
