import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { newId } from '@/common/persistence/base.entity';
import { SettingsRowsRepository } from '@/common/persistence/settings-rows.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';

export interface MemorizeRow {
  agent_id: string | null;
  settings: Record<string, unknown>;
  updated_at: Date;
}

/** Memorize settings rows. */
@Injectable()
export class SettingsRepository extends SettingsRowsRepository {
  /** The default's and the agent's memorize rows as a JSON array, correlated with an `agents a` row. */
  static readonly AGENT_VIEW_SUB_SELECT = `
    SELECT coalesce(json_agg(json_build_object('agent_id', m.agent_id, 'settings', m.settings,
             'updated_at', m.updated_at)), '[]'::json)
      FROM memorize_settings m
     WHERE m.workspace_id = a.workspace_id AND (m.agent_id IS NULL OR m.agent_id = a.id)`;

  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource);
  }

  memorizeRows(
    workspaceId: WorkspaceId,
    agentId: string | null,
    manager?: EntityManager,
  ): Promise<{ def: MemorizeRow | null; agent: MemorizeRow | null }> {
    return this.defaultAndAgent<MemorizeRow>(
      `SELECT agent_id, settings, updated_at FROM memorize_settings
        WHERE workspace_id = $1 AND (agent_id IS NULL OR agent_id = $2)`,
      workspaceId,
      agentId,
      manager,
    );
  }

  async saveMemorize(
    workspaceId: WorkspaceId,
    agentId: string | null,
    settings: Record<string, unknown>,
    manager?: EntityManager,
  ): Promise<void> {
    await this.q(manager).query(
      `INSERT INTO memorize_settings (id, workspace_id, agent_id, settings) VALUES ($1, $2, $3, $4)
       ON CONFLICT ${this.conflictTarget(agentId)} DO UPDATE SET settings = EXCLUDED.settings, updated_at = now()`,
      [newId(), workspaceId, agentId, JSON.stringify(settings)],
    );
  }
}
