import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@/database/data-source';
import { dropDatabase, isolatedDatabase } from '../support/isolated-database';

/** The move of records from the shared jsonb table to one table per data source, and back. */
describe('Knowledge: records tables migration', () => {
  let url: string;
  let db: DataSource;

  beforeAll(async () => {
    url = await isolatedDatabase('records_migration');
    db = new DataSource(dataSourceOptions(url));
    await db.initialize();
  });

  afterAll(async () => {
    await db.destroy();
    await dropDatabase(url);
  });

  /** Reverts migrations, newest first, until the records-table one is undone (later ones come back with it). */
  async function undoRecordTables(): Promise<void> {
    for (;;) {
      const [last] = (await db.query(`SELECT name FROM migrations ORDER BY id DESC LIMIT 1`)) as {
        name: string;
      }[];
      await db.undoLastMigration({ transaction: 'each' });
      if (last.name === 'KnowledgeRecordTables1763870000000') return;
    }
  }

  it('moves every record, with its id and typed values, and moves them back on revert', async () => {
    // Back to the shared table, with records written as the earlier release wrote them.
    await undoRecordTables();
    const ws = randomUUID();
    const ds = randomUUID();
    await db.query(`INSERT INTO workspaces (id, slug, name) VALUES ($1, $2, 'M')`, [
      ws,
      `m-${ws.slice(0, 8)}`,
    ]);
    const columns = [
      { id: 1, name: 'name', type: 'text' },
      { id: 2, name: 'price', type: 'number' },
      { id: 3, name: 'ok', type: 'boolean' },
      { id: 4, name: "it's json", type: 'json' },
    ];
    await db.query(
      `INSERT INTO data_sources (id, workspace_id, name, type, status, columns) VALUES ($1, $2, 'T', 'table', 2, $3)`,
      [ds, ws, JSON.stringify(columns)],
    );
    await db.query(
      `INSERT INTO knowledge_records (id, workspace_id, data_source_id, data) VALUES
         (41, $1, $2, '{"name": "a", "price": 1.5, "ok": true, "it''s json": {"x": [1, null]}}'),
         (42, $1, $2, '{"name": "b", "it''s json": "plain"}'),
         (43, $1, $2, '{"price": 2, "it''s json": null}')`,
      [ws, ds],
    );

    await db.runMigrations({ transaction: 'each' });
    const [{ records_table: table }] = (await db.query(
      `SELECT records_table FROM data_sources WHERE id = $1`,
      [ds],
    )) as { records_table: string }[];
    expect(table).toMatch(/^r_[0-9a-f]{32}_[0-9a-f]{8}$/);
    const rows = (await db.query(
      `SELECT id::int, c1, c2, c3, c4 FROM knowledge_data."${table}" ORDER BY id`,
    )) as Record<string, unknown>[];
    expect(rows).toEqual([
      { id: 41, c1: 'a', c2: '1.5', c3: 'true', c4: '{"x": [1, null]}' },
      { id: 42, c1: 'b', c2: null, c3: null, c4: '"plain"' },
      { id: 43, c1: null, c2: '2', c3: null, c4: null },
    ]);
    // New rows take ids after the moved ones.
    const [{ id }] = (await db.query(
      `INSERT INTO knowledge_data."${table}" (c1) VALUES ('c') RETURNING id::int`,
    )) as { id: number }[];
    expect(id).toBe(44);
    // The table goes with its data source.
    await db.query(`DELETE FROM knowledge_data."${table}" WHERE id = 44`);

    await undoRecordTables();
    const back = (await db.query(`SELECT data FROM knowledge_records WHERE data_source_id = $1 ORDER BY id`, [
      ds,
    ])) as { data: unknown }[];
    expect(back.map((r) => r.data)).toEqual([
      { name: 'a', price: 1.5, ok: true, "it's json": { x: [1, null] } },
      { name: 'b', "it's json": 'plain' },
      { price: 2 },
    ]);
    await db.runMigrations({ transaction: 'each' });
    await db.query(`DELETE FROM workspaces WHERE id = $1`, [ws]);
    const left = (await db.query(
      `SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'knowledge_data'`,
    )) as { n: number }[];
    expect(left[0].n).toBe(0);
  });
});
