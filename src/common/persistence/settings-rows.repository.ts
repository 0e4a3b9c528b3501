import { DataSource, EntityManager } from 'typeorm';
import type { WorkspaceId } from '@/common/auth/workspace-id';

/** A settings row: the workspace default has no agent. */
export interface SettingsRow {
  agent_id: string | null;
}

/**
 * Settings tables of one shape (evaluation, memorize): the workspace default (agent_id NULL) and per-agent
 * overrides, kept one of each by partial unique indexes.
 */
export abstract class SettingsRowsRepository {
  constructor(private readonly dataSource: DataSource) {}

  protected q(manager?: EntityManager): EntityManager {
    return manager ?? this.dataSource.manager;
  }

  /** The default row and the agent's row (if any) of one workspace. */
  protected async defaultAndAgent<R extends SettingsRow>(
    sql: string,
    workspaceId: WorkspaceId,
    agentId: string | null,
    manager?: EntityManager,
  ): Promise<{ def: R | null; agent: R | null }> {
    const rows = (await this.q(manager).query(sql, [workspaceId, agentId])) as R[];
    return {
      def: rows.find((r) => r.agent_id === null) ?? null,
      agent: agentId ? (rows.find((r) => r.agent_id === agentId) ?? null) : null,
    };
  }

  /** The ON CONFLICT target of the default row or of an agent's override. */
  protected conflictTarget(agentId: string | null): string {
    return agentId
      ? '(workspace_id, agent_id) WHERE agent_id IS NOT NULL'
      : '(workspace_id) WHERE agent_id IS NULL';
  }

  /** Serialises every settings change of one workspace (first-PUT creation races). */
  async lockWorkspace(workspaceId: WorkspaceId, manager: EntityManager): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 7))`, [workspaceId]);
  }
}
