import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource as Db } from 'typeorm';
import type { WorkspaceId } from '@/common/persistence/workspace-scoped.repository';
import type { Column, Row } from './column-types';
import { qualified } from './records-table';

export interface SnapshotSource {
  type: string;
  columns: Column[];
  recordsTable: string | null;
}

export interface SearchHit {
  dataSourceId: string;
  dataSourceName: string;
  recordId: number;
  data: Row;
  snippet: string;
  score: number;
}

/** knowledge_assignments and knowledge_index: which agent sees which source, and the agent's synced snapshot. */
@Injectable()
export class KnowledgeIndexRepository {
  constructor(@InjectDataSource() private readonly db: Db) {}

  async assign(workspaceId: WorkspaceId, dataSourceId: string, agentId: string): Promise<void> {
    await this.db.query(
      `INSERT INTO knowledge_assignments (workspace_id, data_source_id, agent_id) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING`,
      [workspaceId, dataSourceId, agentId],
    );
  }

  /** Removes the assignment and what the agent indexed of the source: it must stop seeing it at once. */
  async unassign(workspaceId: WorkspaceId, dataSourceId: string, agentId: string): Promise<boolean> {
    return this.db.transaction(async (m) => {
      const [, affected] = (await m.query(
        `DELETE FROM knowledge_assignments WHERE workspace_id = $1 AND data_source_id = $2 AND agent_id = $3`,
        [workspaceId, dataSourceId, agentId],
      )) as [unknown, number];
      await m.query(
        `DELETE FROM knowledge_index WHERE workspace_id = $1 AND data_source_id = $2 AND agent_id = $3`,
        [workspaceId, dataSourceId, agentId],
      );
      return affected > 0;
    });
  }

  async agentsOf(workspaceId: WorkspaceId, dataSourceId: string): Promise<string[]> {
    const rows = (await this.db.query(
      `SELECT agent_id FROM knowledge_assignments WHERE workspace_id = $1 AND data_source_id = $2 ORDER BY created_at`,
      [workspaceId, dataSourceId],
    )) as { agent_id: string }[];
    return rows.map((r) => r.agent_id);
  }

  /**
   * Rebuilds, in one transaction, every assigned agent's snapshot of this source from its records as they are
   * now. `snapshot` turns the source (read here, locked so that an import cannot swap its table meanwhile) into
   * the SQL of a row `r` of its records table as the record's JSON and as its searchable text.
   */
  async rebuild(
    workspaceId: WorkspaceId,
    dataSourceId: string,
    snapshot: (source: SnapshotSource) => { dataSql: string; contentSql: string },
  ): Promise<number> {
    return this.db.transaction(async (m) => {
      // Two syncs of one source run one after the other, so neither inserts beside the other's rows.
      await m.query(`SELECT pg_advisory_xact_lock(hashtextextended('knowledge-sync:' || $1, 0))`, [
        dataSourceId,
      ]);
      const [source] = (await m.query(
        `SELECT type, columns, records_table AS "recordsTable" FROM data_sources
         WHERE workspace_id = $1 AND id = $2 FOR SHARE`,
        [workspaceId, dataSourceId],
      )) as SnapshotSource[];
      await m.query(`DELETE FROM knowledge_index WHERE workspace_id = $1 AND data_source_id = $2`, [
        workspaceId,
        dataSourceId,
      ]);
      if (!source?.recordsTable) return 0;
      const { dataSql, contentSql } = snapshot(source);
      const [, inserted] = (await m.query(
        `INSERT INTO knowledge_index (workspace_id, agent_id, data_source_id, record_id, data, content)
         SELECT a.workspace_id, a.agent_id, a.data_source_id, r.id, ${dataSql}, ${contentSql}
         FROM ${qualified(source.recordsTable)} r
         CROSS JOIN knowledge_assignments a
         WHERE a.workspace_id = $1 AND a.data_source_id = $2`,
        [workspaceId, dataSourceId],
      )) as [unknown, number];
      return inserted;
    });
  }

  /** Full-text search over what the agent can see, best first. */
  async search(workspaceId: WorkspaceId, agentId: string, q: string, limit: number): Promise<SearchHit[]> {
    const rows = (await this.db.query(
      `WITH query AS (SELECT websearch_to_tsquery('english', $3) AS tsq)
       SELECT i.data_source_id, d.name AS data_source_name, i.record_id, i.data,
              ts_headline('english', i.content, query.tsq,
                          'MaxWords=35, MinWords=15, MaxFragments=2, StartSel=**, StopSel=**') AS snippet,
              ts_rank_cd(i.tsv, query.tsq) AS score
       FROM knowledge_index i
       JOIN data_sources d ON d.id = i.data_source_id
       CROSS JOIN query
       WHERE i.workspace_id = $1 AND i.agent_id = $2 AND i.tsv @@ query.tsq
       ORDER BY score DESC, i.record_id
       LIMIT $4`,
      [workspaceId, agentId, q, limit],
    )) as {
      data_source_id: string;
      data_source_name: string;
      record_id: string;
      data: Row;
      snippet: string;
      score: number;
    }[];
    return rows.map((r) => ({
      dataSourceId: r.data_source_id,
      dataSourceName: r.data_source_name,
      recordId: Number(r.record_id),
      data: r.data,
      snippet: r.snippet,
      score: Number(r.score),
    }));
  }
}
