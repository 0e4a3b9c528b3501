import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource as Db, EntityManager } from 'typeorm';
import type { WorkspaceId } from '@/common/persistence/workspace-scoped.repository';
import type { Column, Row } from './column-types';
import { qualified } from './records-table';

export interface SnapshotSource {
  type: string;
  columns: Column[];
  recordsTable: string | null;
}

export interface SearchHit {
  /** The passage (knowledge_index row). */
  id: number;
  dataSourceId: string;
  dataSourceName: string;
  recordId: number;
  data: Row;
  dataSourceType: string;
  snippet: string;
  score: number;
}

/** Records copied per statement of a sync (progress is reported after each batch). */
const SYNC_BATCH = 5000;

/**
 * A lexeme as a tsquery operand: quoted, with quotes and backslashes escaped as tsquery input reads them
 * (quote_literal writes E'...' around a backslash, which tsquery does not read).
 */
function tsLexeme(expr: string): string {
  return `('''' || replace(replace(${expr}, '\\', '\\\\'), '''', '''''') || '''')`;
}

/** A word in at most this many passages selects candidates alone; more common words only all together. */
const RARE = 2000;
/** Candidates found by rare words, at most (a bound on the work of one search). */
const MAX_CANDIDATES = 10_000;
/**
 * Passages taken among those that tie (holding all the common words, or any word when nothing else matched):
 * they score alike until the re-ranking, so the scan stops after this many instead of reading thousands.
 */
const TIED = 200;

/**
 * The ranking, in one statement (parameters: workspace, agent, part texts, part weights, phrase text, limit):
 * 1. words: the stemmed words of each part, stop words dropped (english configuration), at their part's weight;
 * 2. terms: each word as it is in the agent's vocabulary or, when absent (a typo), the most similar vocabulary
 *    word by trigrams (words of 4+ letters), with its passage count;
 * 3. weight of a term: part weight x BM25 inverse document frequency, so rare words count more;
 * 4. candidates, through the GIN index: passages holding any rare term (in at most RARE passages), or all of
 *    the commoner ones together; terms in over 20% of passages select nothing (unless only such terms are left);
 *    when that finds nothing, passages holding any of the terms. Each scores the sum of the weights of the
 *    terms it holds (coverage x rarity), the best 100 kept. Only passages found by a rare term are read for
 *    this: those holding all the common terms tie at their sum, so TIED of them are taken as found, which
 *    bounds the work of questions made only of common words;
 * 5. those are re-ranked by BM25 (term weights with saturating term frequency, k1 = 1.2; length normalisation
 *    b = 0.1 only, since a chunk of imported text holds several topics and must not lose to short rows), a
 *    boost for each pair of adjacent question words found adjacent in the passage (phrase), and the cover
 *    density of all terms (proximity, normalised by length).
 */
const SEARCH_SQL = `
WITH n AS (
  SELECT coalesce(max(passages), 0) AS passages, coalesce(max(avg_length), 1) AS avg_length
  FROM knowledge_index_stats WHERE workspace_id = $1 AND agent_id = $2
), words AS (
  SELECT w.lexeme, max(p.weight) AS weight
  FROM unnest($3::text[], $4::float8[]) AS p(text, weight)
  CROSS JOIN LATERAL unnest(tsvector_to_array(to_tsvector('english', p.text))) AS w(lexeme)
  GROUP BY w.lexeme
), terms AS (
  SELECT coalesce(t.lexeme, fix.lexeme) AS lexeme, max(w.weight) AS weight,
         max(coalesce(t.ndoc, fix.ndoc)) AS ndoc
  FROM words w
  LEFT JOIN knowledge_terms t ON t.workspace_id = $1 AND t.agent_id = $2 AND t.lexeme = w.lexeme
  LEFT JOIN LATERAL (
    SELECT f.lexeme, f.ndoc FROM knowledge_terms f
    WHERE t.lexeme IS NULL AND length(w.lexeme) >= 4
      AND f.workspace_id = $1 AND f.agent_id = $2 AND f.lexeme % w.lexeme
    ORDER BY similarity(f.lexeme, w.lexeme) DESC, f.ndoc DESC
    LIMIT 1
  ) fix ON true
  WHERE coalesce(t.lexeme, fix.lexeme) IS NOT NULL
  GROUP BY 1
), weighted AS (
  SELECT t.lexeme, ${tsLexeme('t.lexeme')}::tsquery AS q, t.ndoc,
         t.weight * ln(1 + (n.passages - t.ndoc + 0.5) / (t.ndoc + 0.5)) AS w
  FROM terms t CROSS JOIN n
), probe_terms AS (
  SELECT x.lexeme, x.ndoc FROM weighted x CROSS JOIN n
  WHERE x.ndoc <= greatest(n.passages * 0.2, 50)
     OR x.lexeme = (SELECT lexeme FROM weighted ORDER BY ndoc, lexeme LIMIT 1)
), probe AS (
  SELECT (SELECT string_agg(${tsLexeme('lexeme')}, ' | ') FROM probe_terms WHERE ndoc <= ${RARE}) AS rare,
         (SELECT string_agg(${tsLexeme('lexeme')}, ' & ') FROM probe_terms WHERE ndoc > ${RARE}) AS common
), rare_found AS MATERIALIZED (
  SELECT i.id, i.tsv
  FROM knowledge_index i CROSS JOIN probe
  WHERE probe.rare IS NOT NULL AND i.workspace_id = $1 AND i.agent_id = $2 AND i.tsv @@ probe.rare::tsquery
  LIMIT ${MAX_CANDIDATES}
), common_found AS MATERIALIZED (
  SELECT i.id
  FROM knowledge_index i CROSS JOIN probe
  WHERE probe.common IS NOT NULL AND i.workspace_id = $1 AND i.agent_id = $2 AND i.tsv @@ probe.common::tsquery
  LIMIT ${TIED}
), fallback AS (
  SELECT i.id
  FROM knowledge_index i
  CROSS JOIN (SELECT string_agg(${tsLexeme('lexeme')}, ' | ')::tsquery AS q FROM probe_terms) f
  WHERE NOT EXISTS (SELECT 1 FROM rare_found) AND NOT EXISTS (SELECT 1 FROM common_found)
    AND i.workspace_id = $1 AND i.agent_id = $2 AND i.tsv @@ f.q
  LIMIT ${TIED}
), everything AS (
  SELECT string_agg(${tsLexeme('lexeme')}, ' | ')::tsquery AS q FROM weighted
), pos AS (
  SELECT u.lexeme, p AS pos
  FROM unnest(to_tsvector('english', $5)) u CROSS JOIN LATERAL unnest(u.positions) AS p
), pairs AS (
  SELECT DISTINCT (${tsLexeme('a.lexeme')} || ' <-> ' || ${tsLexeme('b.lexeme')})::tsquery AS q,
         (wa.w + wb.w) / 2 AS w
  FROM pos a
  JOIN pos b ON b.pos = a.pos + 1
  JOIN weighted wa ON wa.lexeme = a.lexeme
  JOIN weighted wb ON wb.lexeme = b.lexeme
), best AS (
  SELECT c.id, c.coverage FROM (
    SELECT r.id, (SELECT sum(x.w) FROM weighted x WHERE r.tsv @@ x.q) AS coverage FROM rare_found r
    UNION ALL
    SELECT c.id, (SELECT sum(x.w) FROM weighted x JOIN probe_terms p ON p.lexeme = x.lexeme WHERE p.ndoc > ${RARE})
    FROM common_found c WHERE NOT EXISTS (SELECT 1 FROM rare_found r WHERE r.id = c.id)
    UNION ALL
    SELECT f.id, 0 FROM fallback f
  ) c
  ORDER BY c.coverage DESC
  LIMIT 100
), scored AS (
  SELECT b.id, i.tsv, b.coverage FROM best b JOIN knowledge_index i ON i.id = b.id AND i.workspace_id = $1
), ranked AS (
  SELECT s.id,
         (SELECT sum(x.w * (tf.n * 2.2) / (tf.n + 1.2 * (0.9 + 0.1 * length(s.tsv) / n.avg_length)))
          FROM unnest(s.tsv) u
          JOIN weighted x ON x.lexeme = u.lexeme
          CROSS JOIN LATERAL (SELECT coalesce(array_length(u.positions, 1), 1) AS n) tf)
           + coalesce((SELECT sum(p.w) FROM pairs p WHERE s.tsv @@ p.q), 0)
           + ts_rank_cd(s.tsv, everything.q, 1) AS score
  FROM scored s CROSS JOIN everything CROSS JOIN n
  ORDER BY score DESC, s.id
  LIMIT $6
)
SELECT i.id, i.data_source_id, d.name AS data_source_name, d.type AS data_source_type, i.record_id, i.data,
       ts_headline('english', i.content, everything.q,
                   'MaxWords=35, MinWords=15, MaxFragments=2, StartSel=**, StopSel=**') AS snippet,
       r.score
FROM ranked r
JOIN knowledge_index i ON i.id = r.id AND i.workspace_id = $1
JOIN data_sources d ON d.id = i.data_source_id AND d.workspace_id = $1
CROSS JOIN everything
ORDER BY r.score DESC, r.id`;

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
      await this.recount(m, workspaceId, agentId);
      return affected > 0;
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
    await m.query(`SELECT pg_advisory_xact_lock(hashtextextended('knowledge-terms:' || $1, 0))`, [agentId]);
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

  /**
   * Ranked retrieval over what the agent can see, best first. `parts` are texts with weights (the question,
   * and for a conversation its earlier turns, weighted less); `phrase` is the text whose adjacent words earn a
   * phrase boost. See docs/architecture.md (Knowledge retrieval) for the ranking.
   */
  async search(
    workspaceId: WorkspaceId,
    agentId: string,
    parts: { text: string; weight: number }[],
    phrase: string,
    limit: number,
  ): Promise<SearchHit[]> {
    const rows = (await this.db.query(SEARCH_SQL, [
      workspaceId,
      agentId,
      parts.map((p) => p.text),
      parts.map((p) => p.weight),
      phrase,
      limit,
    ])) as HitRow[];
    return rows.map(toHit);
  }

  /** These passages of the agent (found by vector), in the given order, with the start of each as snippet. */
  async passages(workspaceId: WorkspaceId, agentId: string, ids: number[]): Promise<SearchHit[]> {
    if (!ids.length) return [];
    const rows = (await this.db.query(
      `SELECT i.id, i.data_source_id, d.name AS data_source_name, d.type AS data_source_type, i.record_id, i.data,
              left(i.content, 240) AS snippet, 0 AS score
       FROM knowledge_index i
       JOIN data_sources d ON d.id = i.data_source_id AND d.workspace_id = $1
       WHERE i.workspace_id = $1 AND i.agent_id = $2 AND i.id = ANY($3::bigint[])`,
      [workspaceId, agentId, ids],
    )) as HitRow[];
    const byId = new Map(rows.map((r) => [Number(r.id), toHit(r)]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }
}

interface HitRow {
  id: string;
  data_source_id: string;
  data_source_name: string;
  data_source_type: string;
  record_id: string;
  data: Row;
  snippet: string;
  score: number;
}

function toHit(r: HitRow): SearchHit {
  return {
    id: Number(r.id),
    dataSourceId: r.data_source_id,
    dataSourceName: r.data_source_name,
    dataSourceType: r.data_source_type,
    recordId: Number(r.record_id),
    data: r.data,
    snippet: r.snippet,
    score: Number(r.score),
  };
}
