import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Ranked retrieval: per-agent vocabulary with document frequencies, the passage count and mean length of each agent's index (rarity weights, and typo correction
 * through trigram similarity), the progress of a running sync, and passage vectors.
 */
export class KnowledgeRetrieval1763885000000 implements MigrationInterface {
  name = 'KnowledgeRetrieval1763885000000';

  public async up(q: QueryRunner): Promise<void> {
    // pg_trgm is a trusted extension (PostgreSQL 13+): the database owner may create it.
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await q.query(`
      CREATE TABLE knowledge_terms (
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
        lexeme text NOT NULL,
        ndoc integer NOT NULL,
        PRIMARY KEY (workspace_id, agent_id, lexeme)
      )`);
    await q.query(`CREATE INDEX ix_knowledge_terms_trgm ON knowledge_terms USING gin (lexeme gin_trgm_ops)`);
    await q.query(`
      CREATE TABLE knowledge_index_stats (
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
        passages integer NOT NULL,
        avg_length real NOT NULL,
        PRIMARY KEY (workspace_id, agent_id)
      )`);
    // Apart from data_sources: a sync holds its data-source row FOR SHARE while it writes progress.
    await q.query(`
      CREATE TABLE knowledge_sync_progress (
        data_source_id uuid PRIMARY KEY REFERENCES data_sources(id) ON DELETE CASCADE,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        done integer NOT NULL,
        total integer NOT NULL,
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    // Semantic retrieval (when an embeddings model is configured): one unit vector a passage, computed by the
    // sync job, with the model that made it. A plain array, so the schema needs no extension; see
    // docs/architecture.md for how pgvector is used when the database has it.
    await q.query(
      `ALTER TABLE knowledge_index ADD COLUMN embedding real[], ADD COLUMN embedding_model varchar(200)`,
    );
    // The sync's vector pass walks one source's passages by record.
    await q.query(
      `CREATE INDEX ix_knowledge_index_source_record ON knowledge_index (workspace_id, data_source_id, record_id)`,
    );
    // Indexes synced before this version get their vocabulary now.
    await q.query(`
      INSERT INTO knowledge_index_stats (workspace_id, agent_id, passages, avg_length)
      SELECT workspace_id, agent_id, count(*), avg(length(tsv)) FROM knowledge_index GROUP BY 1, 2`);
    await q.query(`
      INSERT INTO knowledge_terms (workspace_id, agent_id, lexeme, ndoc)
      SELECT s.workspace_id, s.agent_id, t.word, t.ndoc
      FROM knowledge_index_stats s
      CROSS JOIN LATERAL ts_stat(format(
        'SELECT tsv FROM knowledge_index WHERE workspace_id = %L AND agent_id = %L', s.workspace_id, s.agent_id)) t`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_knowledge_index_source_record`);
    await q.query(`ALTER TABLE knowledge_index DROP COLUMN embedding, DROP COLUMN embedding_model`);
    await q.query(`DROP TABLE knowledge_sync_progress`);
    await q.query(`DROP TABLE knowledge_index_stats`);
    await q.query(`DROP TABLE knowledge_terms`);
  }
}
