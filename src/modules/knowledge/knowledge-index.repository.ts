import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource as Db, EntityManager } from 'typeorm';
import type { WorkspaceId } from '@/common/persistence/workspace-scoped.repository';
import type { Column } from './column-types';
import { qualified } from './records-table';
import { lockUntilCommit } from '@/common/persistence/advisory-lock';

export interface SnapshotSource {
  type: string;
  columns: Column[];
  recordsTable: string | null;
}

/** Records copied per statement of a sync (progress is reported after each batch). */
const SYNC_BATCH = 5000;

/**
 * knowledge_assignments and knowledge_index: which agent sees which source, and the agent's synced snapshot with
 * its vocabulary. Searching the snapshot is KnowledgeSearchRepository's.
 */
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
      // Not held: nothing of it was indexed, and the agent (maybe of no workspace, or another) is left alone.
      if (affected === 0) return false;
      await m.query(
        `DELETE FROM knowledge_index WHERE workspace_id = $1 AND data_source_id = $2 AND agent_id = $3`,
        [workspaceId, dataSourceId, agentId],
      );
      await this.recount(m, workspaceId, agentId);
      return true;
    });
  }

  /** Refreshes the vocabularies of these agents (after a data source and its index rows went). */
  async recountAgents(workspaceId: WorkspaceId, agentIds: string[]): Promise<void> {
    for (const agentId of [...agentIds].sort())
      await this.db.transaction((m) => this.recount(m, workspaceId, agentId));
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
   * now, then those agents' vocabularies. `snapshot` turns the source (read here, locked so that an import cannot
   * swap its table meanwhile) into the SQL of a row `r` of its records table as the record's JSON and as its
   * searchable text. Records are copied in batches; `progress` (records done, total) is written after each one,
   * outside the transaction so that readers see it while the sync runs.
   */
  async rebuild(
    workspaceId: WorkspaceId,
    dataSourceId: string,
    snapshot: (source: SnapshotSource) => { dataSql: string; contentSql: string },
  ): Promise<number> {
    return this.db.transaction(async (m) => {
      // Two syncs of one source run one after the other, so neither inserts beside the other's rows.
      await lockUntilCommit(m, 'knowledge-sync', dataSourceId);
      const [source] = (await m.query(
        `SELECT type, columns, records_table AS "recordsTable" FROM data_sources
         WHERE workspace_id = $1 AND id = $2 FOR SHARE`,
        [workspaceId, dataSourceId],
      )) as SnapshotSource[];
      await m.query(`DELETE FROM knowledge_index WHERE workspace_id = $1 AND data_source_id = $2`, [
        workspaceId,
        dataSourceId,
      ]);
      let inserted = 0;
      if (source?.recordsTable) {
        const table = qualified(source.recordsTable);
        const [{ total }] = (await m.query(`SELECT count(*)::int AS total FROM ${table}`)) as {
          total: number;
        }[];
        await this.progress(workspaceId, dataSourceId, 0, total);
        const { dataSql, contentSql } = snapshot(source);
        let done = 0;
        let after = 0;
        for (;;) {
          const [batch] = (await m.query(
            `WITH batch AS (SELECT * FROM ${table} WHERE id > $3 ORDER BY id LIMIT ${SYNC_BATCH}),
             ins AS (
               INSERT INTO knowledge_index (workspace_id, agent_id, data_source_id, record_id, data, content)
               SELECT a.workspace_id, a.agent_id, a.data_source_id, r.id, ${dataSql}, ${contentSql}
               FROM batch r
               CROSS JOIN knowledge_assignments a
               WHERE a.workspace_id = $1 AND a.data_source_id = $2
               RETURNING 1)
             SELECT (SELECT count(*) FROM batch)::int AS records, (SELECT max(id) FROM batch)::bigint AS last,
                    (SELECT count(*) FROM ins)::int AS inserted`,
            [workspaceId, dataSourceId, after],
          )) as { records: number; last: string | null; inserted: number }[];
          if (!batch.records) break;
          done += batch.records;
          inserted += batch.inserted;
          after = Number(batch.last);
          await this.progress(workspaceId, dataSourceId, done, Math.max(total, done));
        }
      }
      const agents = (await m.query(
        `SELECT agent_id FROM knowledge_assignments WHERE workspace_id = $1 AND data_source_id = $2
         ORDER BY agent_id`,
        [workspaceId, dataSourceId],
      )) as { agent_id: string }[];
      for (const a of agents) await this.recount(m, workspaceId, a.agent_id);
      return inserted;
    });
  }

  /**
   * Fresh planner statistics after a sync: a search over a large, just-rebuilt index planned on the old ones
   * scans every word of the agent instead of looking up the question's (ten times slower).
   */
  async analyze(): Promise<void> {
    await this.db.query(`ANALYZE knowledge_index, knowledge_terms, knowledge_index_stats`);
  }

  private async progress(workspaceId: WorkspaceId, dataSourceId: string, done: number, total: number) {
    await this.db.query(
      `INSERT INTO knowledge_sync_progress (data_source_id, workspace_id, done, total) VALUES ($2, $1, $3, $4)
       ON CONFLICT (data_source_id) DO UPDATE SET done = $3, total = $4, updated_at = now()
       WHERE knowledge_sync_progress.workspace_id = $1`,
      [workspaceId, dataSourceId, done, total],
    );
  }

  /** The progress of the source's current or last sync: records copied of the total. */
  async syncProgress(
    workspaceId: WorkspaceId,
    dataSourceId: string,
  ): Promise<{ done: number; total: number } | null> {
    const [row] = (await this.db.query(
      `SELECT done, total FROM knowledge_sync_progress WHERE workspace_id = $1 AND data_source_id = $2`,
      [workspaceId, dataSourceId],
    )) as { done: number; total: number }[];
    return row ?? null;
  }

  /**
   * The agent's vocabulary (each stemmed word and the number of passages holding it) and passage count, from
   * its index as it is now: the rarity weights of ranking and the dictionary of typo correction. Callers hold
   * a transaction; the advisory lock makes two syncs for one agent rebuild it one after the other.
   */
  private async recount(m: EntityManager, workspaceId: WorkspaceId, agentId: string): Promise<void> {
    await lockUntilCommit(m, 'knowledge-terms', agentId);
    await m.query(`DELETE FROM knowledge_terms WHERE workspace_id = $1 AND agent_id = $2`, [
      workspaceId,
      agentId,
    ]);
    await m.query(
      `INSERT INTO knowledge_terms (workspace_id, agent_id, lexeme, ndoc)
       SELECT $1, $2, u.lexeme, count(*) FROM knowledge_index i, unnest(i.tsv) AS u
       WHERE i.workspace_id = $1 AND i.agent_id = $2
       GROUP BY u.lexeme`,
      [workspaceId, agentId],
    );
    await m.query(
      `INSERT INTO knowledge_index_stats (workspace_id, agent_id, passages, avg_length)
       SELECT $1, $2, count(*), coalesce(avg(length(tsv)), 0) FROM knowledge_index
       WHERE workspace_id = $1 AND agent_id = $2
       ON CONFLICT (workspace_id, agent_id)
       DO UPDATE SET passages = EXCLUDED.passages, avg_length = EXCLUDED.avg_length`,
      [workspaceId, agentId],
    );
  }
}
