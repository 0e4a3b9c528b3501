import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource as Db } from 'typeorm';
import type { WorkspaceId } from '@/common/persistence/workspace-scoped.repository';
import type { Row } from './column-types';
import { SEARCH_SQL } from './knowledge-search.sql';

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

/** Reads of the agents' indexes: ranked retrieval by words, and passages by id (those found by vector). */
@Injectable()
export class KnowledgeSearchRepository {
  constructor(@InjectDataSource() private readonly db: Db) {}

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
