import { MigrationInterface, QueryRunner } from 'typeorm';
import type { Column } from '../../modules/knowledge/column-types';
import {
  columnName,
  createTableSql,
  literal,
  newTableName,
  qualified,
  recordJsonSql,
  RECORDS_SCHEMA,
} from '../../modules/knowledge/records-table';

/**
 * Records move from the shared `knowledge_records` (one jsonb document a row) to one table per data source in
 * the `knowledge_data` schema (one text column per data-source column), which bulk imports fill with COPY at
 * the speed of PostgreSQL's own CSV reader. Existing records keep their ids.
 */
export class KnowledgeRecordTables1763870000000 implements MigrationInterface {
  name = 'KnowledgeRecordTables1763870000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SCHEMA ${RECORDS_SCHEMA}`);
    await q.query(`ALTER TABLE data_sources ADD COLUMN records_table varchar(63)`);
    // A records table lives and dies with its data source row: deleted (also by a workspace's cascade) or
    // pointed at a new table by an import, the old table is dropped in the same transaction.
    await q.query(`
      CREATE FUNCTION ${RECORDS_SCHEMA}.drop_replaced_records_table() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.records_table IS NOT NULL
           AND (TG_OP = 'DELETE' OR OLD.records_table IS DISTINCT FROM NEW.records_table) THEN
          EXECUTE format('DROP TABLE IF EXISTS ${RECORDS_SCHEMA}.%I', OLD.records_table);
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER tr_data_sources_records_table
      AFTER DELETE OR UPDATE OF records_table ON data_sources
      FOR EACH ROW EXECUTE FUNCTION ${RECORDS_SCHEMA}.drop_replaced_records_table()`);

    const sources = (await q.query(`SELECT id, columns FROM data_sources`)) as {
      id: string;
      columns: Column[];
    }[];
    for (const ds of sources) {
      const table = newTableName(ds.id);
      await q.query(
        createTableSql(
          table,
          ds.columns.map((c) => c.id),
          true,
        ),
      );
      const values = ds.columns.map((c) =>
        c.type === 'json'
          ? `CASE WHEN jsonb_typeof(data -> ${literal(c.name)}) = 'null' THEN NULL
                  ELSE (data -> ${literal(c.name)})::text END`
          : `data ->> ${literal(c.name)}`,
      );
      await q.query(
        `INSERT INTO ${qualified(table)} (id, created_at, updated_at${ds.columns.map((c) => `, ${columnName(c.id)}`).join('')})
         SELECT id, created_at, updated_at${values.map((v) => `, ${v}`).join('')}
         FROM knowledge_records WHERE data_source_id = $1`,
        [ds.id],
      );
      await q.query(
        `SELECT setval(pg_get_serial_sequence('${qualified(table)}', 'id'), (SELECT max(id) FROM ${qualified(table)}))
         WHERE EXISTS (SELECT 1 FROM ${qualified(table)})`,
      );
      await q.query(`UPDATE data_sources SET records_table = $2 WHERE id = $1`, [ds.id, table]);
    }
    await q.query(`DROP TABLE knowledge_records`);
  }

  public async down(q: QueryRunner): Promise<void> {
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
    const sources = (await q.query(
      `SELECT id, workspace_id, columns, records_table FROM data_sources WHERE records_table IS NOT NULL`,
    )) as { id: string; workspace_id: string; columns: Column[]; records_table: string }[];
    for (const ds of sources) {
      // Per-source ids may repeat across sources: they are renumbered from the shared sequence.
      await q.query(
        `INSERT INTO knowledge_records (workspace_id, data_source_id, data, created_at, updated_at)
         SELECT $1, $2, jsonb_strip_nulls(${recordJsonSql(ds.columns, 'r')}), r.created_at, r.updated_at
         FROM ${qualified(ds.records_table)} r ORDER BY r.id`,
        [ds.workspace_id, ds.id],
      );
    }
    // The agents' indexes name records by the old ids: they are emptied and must be synced again.
    await q.query(`DELETE FROM knowledge_index`);
    await q.query(`UPDATE data_sources SET sync_status = 'never', last_synced_at = NULL`);
    await q.query(`DROP TRIGGER tr_data_sources_records_table ON data_sources`);
    await q.query(`ALTER TABLE data_sources DROP COLUMN records_table`);
    await q.query(`DROP SCHEMA ${RECORDS_SCHEMA} CASCADE`);
  }
}
