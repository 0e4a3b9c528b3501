import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource as Db } from 'typeorm';
import type { WorkspaceId } from '@/common/persistence/workspace-scoped.repository';

/** Texts of one sync embedded per request to the model. */
export const EMBED_BATCH = 64;

/**
 * Passage vectors in knowledge_index.embedding (unit length, so a dot product is the cosine similarity).
 * Scoring is exact. When the database has the pgvector extension (detected at start), the dot product runs in
 * pgvector's C code over the array cast to `vector`; otherwise in SQL over the array, which is fine for tens of
 * thousands of passages an agent and slows linearly beyond (see docs/architecture.md).
 */
@Injectable()
export class KnowledgeVectorsRepository implements OnModuleInit {
  private readonly logger = new Logger(KnowledgeVectorsRepository.name);
  private pgvector = false;

  constructor(@InjectDataSource() private readonly db: Db) {}

  async onModuleInit(): Promise<void> {
    const rows = (await this.db.query(`SELECT 1 FROM pg_extension WHERE extname = 'vector'`)) as unknown[];
    this.pgvector = rows.length > 0;
    this.logger.log({ pgvector: this.pgvector }, 'passage vector scoring');
  }

  get usesPgvector(): boolean {
    return this.pgvector;
  }

  /**
   * Records of the source after `afterRecord` whose passages (any agent's) lack a vector from `model`: one
   * passage per record, `limit` at most, in record order.
   */
  async pending(
    workspaceId: WorkspaceId,
    dataSourceId: string,
    model: string,
    afterRecord: number,
    limit: number,
  ): Promise<{ recordId: number; content: string }[]> {
    const rows = (await this.db.query(
      `SELECT DISTINCT ON (record_id) record_id, content FROM knowledge_index
       WHERE workspace_id = $1 AND data_source_id = $2 AND record_id > $4
         AND embedding_model IS DISTINCT FROM $3
       ORDER BY record_id LIMIT $5`,
      [workspaceId, dataSourceId, model, afterRecord, limit],
    )) as { record_id: string; content: string }[];
    return rows.map((r) => ({ recordId: Number(r.record_id), content: r.content }));
  }

  /** Stores each record's vector on every agent's copy of it. */
  async store(
    workspaceId: WorkspaceId,
    dataSourceId: string,
    model: string,
    vectors: { recordId: number; vector: number[] }[],
  ): Promise<void> {
    await this.db.query(
      `UPDATE knowledge_index i SET embedding = v.embedding::real[], embedding_model = $3
       FROM unnest($4::bigint[], $5::text[]) AS v(record_id, embedding)
       WHERE i.workspace_id = $1 AND i.data_source_id = $2 AND i.record_id = v.record_id`,
      [
        workspaceId,
        dataSourceId,
        model,
        vectors.map((v) => v.recordId),
        vectors.map((v) => `{${v.vector.join(',')}}`),
      ],
    );
  }

  /** The agent's passages closest to `vector` (made by `model`), best first, with their cosine similarity. */
  async nearest(
    workspaceId: WorkspaceId,
    agentId: string,
    vector: number[],
    model: string,
    limit: number,
  ): Promise<{ id: number; similarity: number }[]> {
    const similarity = this.pgvector
      ? `-(i.embedding::vector <#> $3::real[]::vector)`
      : `(SELECT sum(a * b) FROM unnest(i.embedding, $3::real[]) AS t(a, b))`;
    const rows = (await this.db.query(
      `SELECT i.id, ${similarity} AS similarity FROM knowledge_index i
       WHERE i.workspace_id = $1 AND i.agent_id = $2 AND i.embedding_model = $4
         AND cardinality(i.embedding) = cardinality($3::real[])
       ORDER BY similarity DESC, i.id LIMIT $5`,
      [workspaceId, agentId, vector, model, limit],
    )) as { id: string; similarity: number }[];
    return rows.map((r) => ({ id: Number(r.id), similarity: Number(r.similarity) }));
  }
}
