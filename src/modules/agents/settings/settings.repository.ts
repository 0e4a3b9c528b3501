import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { newId } from '@/common/persistence/base.entity';
import { lockSettings } from '@/modules/evaluation/settings/evaluation-settings.repository';

export interface MemorizeRow {
  agent_id: string | null;
  settings: Record<string, unknown>;
  updated_at: Date;
}

/** Memorize settings rows: the workspace default (agent_id NULL) and per-agent overrides. */
@Injectable()
export class SettingsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private q(manager?: EntityManager): EntityManager {
    return manager ?? this.dataSource.manager;
  }

  async memorizeRows(
    workspaceId: string,
    agentId: string | null,
    manager?: EntityManager,
  ): Promise<{ def: MemorizeRow | null; agent: MemorizeRow | null }> {
    const rows = (await this.q(manager).query(
      `SELECT agent_id, settings, updated_at FROM memorize_settings
        WHERE workspace_id = $1 AND (agent_id IS NULL OR agent_id = $2)`,
      [workspaceId, agentId],
    )) as MemorizeRow[];
    return {
      def: rows.find((r) => r.agent_id === null) ?? null,
      agent: agentId ? (rows.find((r) => r.agent_id === agentId) ?? null) : null,
    };
  }

  async saveMemorize(
    workspaceId: string,
    agentId: string | null,
    settings: Record<string, unknown>,
    manager?: EntityManager,
  ): Promise<void> {
    const target = agentId
      ? '(workspace_id, agent_id) WHERE agent_id IS NOT NULL'
      : '(workspace_id) WHERE agent_id IS NULL';
    await this.q(manager).query(
      `INSERT INTO memorize_settings (id, workspace_id, agent_id, settings) VALUES ($1, $2, $3, $4)
       ON CONFLICT ${target} DO UPDATE SET settings = EXCLUDED.settings, updated_at = now()`,
      [newId(), workspaceId, agentId, JSON.stringify(settings)],
    );
  }

  /** Serialises settings changes of one workspace (first-PUT creation races). */
  lockWorkspace(workspaceId: string, manager: EntityManager): Promise<void> {
    return lockSettings(workspaceId, manager);
  }
}
