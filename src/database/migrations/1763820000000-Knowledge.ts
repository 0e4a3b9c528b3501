import { MigrationInterface, QueryRunner } from 'typeorm';

export class Knowledge1763820000000 implements MigrationInterface {
  name = 'Knowledge1763820000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE data_sources (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        name varchar(200) NOT NULL,
        description text,
        type varchar(20) NOT NULL CHECK (type IN ('table', 'copypaste', 'file', 'website')),
        path_url text,
        path_ext varchar(20),
        status smallint NOT NULL DEFAULT 0 CHECK (status BETWEEN 0 AND 3),
        error text,
        progress_done integer,
        progress_total integer,
        columns jsonb NOT NULL DEFAULT '[]',
        options jsonb NOT NULL DEFAULT '{}',
        sync_status varchar(20) NOT NULL DEFAULT 'never'
          CHECK (sync_status IN ('never', 'queued', 'syncing', 'synced', 'failed')),
        sync_error text,
        last_synced_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX ix_data_sources_workspace_created ON data_sources (workspace_id, created_at DESC, id DESC)`,
    );

    // Rows of every data source: typed-table rows and text chunks alike, values keyed by column name.
    await q.query(`
      CREATE TABLE knowledge_records (
        id bigserial PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        data_source_id uuid NOT NULL REFERENCES data_sources(id) ON DELETE CASCADE,
        data jsonb NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX ix_knowledge_records_source ON knowledge_records (data_source_id, id)`);
    await q.query(`CREATE INDEX ix_knowledge_records_workspace ON knowledge_records (workspace_id)`);

    await q.query(`
      CREATE TABLE knowledge_assignments (
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        data_source_id uuid NOT NULL REFERENCES data_sources(id) ON DELETE CASCADE,
        agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (data_source_id, agent_id)
      )`);
    await q.query(
      `CREATE INDEX ix_knowledge_assignments_agent ON knowledge_assignments (workspace_id, agent_id)`,
    );

    // The agent's searchable snapshot, rebuilt by sync: copies of the records as they were at that moment.
    await q.query(`
      CREATE TABLE knowledge_index (
        id bigserial PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
        data_source_id uuid NOT NULL REFERENCES data_sources(id) ON DELETE CASCADE,
        record_id bigint NOT NULL,
        data jsonb NOT NULL,
        content text NOT NULL,
        tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED
      )`);
    await q.query(`CREATE INDEX ix_knowledge_index_tsv ON knowledge_index USING gin (tsv)`);
    await q.query(
      `CREATE INDEX ix_knowledge_index_agent_source ON knowledge_index (workspace_id, agent_id, data_source_id)`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE knowledge_index`);
    await q.query(`DROP TABLE knowledge_assignments`);
    await q.query(`DROP TABLE knowledge_records`);
    await q.query(`DROP TABLE data_sources`);
  }
}
