import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DataSource as Db } from 'typeorm';
import { CsvFastPath, SPLIT_MIN_BYTES } from '@/modules/knowledge/importers/csv-fast';
import { SweepRecordTablesProcessor } from '@/modules/knowledge/jobs/knowledge-jobs.module';
import { createTableSql, newTableName } from '@/modules/knowledge/records-table';
import { ImportsService } from '@/modules/knowledge/imports.service';
import { RecordsRepository } from '@/modules/knowledge/records.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { createAgent, synced, upload, waitFor } from '../factories/knowledge.factory';
import { createTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';

/** Records tables: one per data source, filled by PostgreSQL's CSV reader when the file allows it. */
describe('Knowledge: records tables and the CSV fast path', () => {
  const storage = path.join(os.tmpdir(), `cap-record-tables-${process.pid}`);
  // A storage folder and queues of its own: the spies below must see this process run the jobs, and other
  // suites count the files in their upload folders.
  const suite = useTestApp({ env: { STORAGE_DIR: storage }, tenants: ['tenant'] });
  let db: Db;

  beforeAll(() => {
    db = suite.app.get<Db>(Db);
  });
  afterAll(() => {
    jest.restoreAllMocks();
    fs.rmSync(storage, { recursive: true, force: true });
  });

  const records = async (uuid: string) =>
    (await suite.tenant.http.get(`/api/v1/data/${uuid}/records?per_page=100`)).body.data.items as {
      id: number;
      data: Record<string, unknown>;
    }[];

  /** The records tables of a data source that exist in the database. */
  const tablesOf = async (uuid: string): Promise<string[]> =>
    (
      (await db.query(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'knowledge_data' AND table_name LIKE $1`,
        [`r_${uuid.replaceAll('-', '')}_%`],
      )) as { table_name: string }[]
    ).map((r) => r.table_name);

  /** Uploads a CSV and answers the finished data source and whether PostgreSQL's reader stored it. */
  const importCsv = async (name: string, csv: string) => {
    const spy = jest.spyOn(CsvFastPath.prototype, 'columns');
    try {
      const res = await upload(suite.tenant, name, csv, `${name}.csv`);
      expect(res.status).toBe(201);
      // Up to the test's own limit: a 90,000-row file read by the general reader takes 20 s on a loaded machine.
      const done = await waitFor(suite.tenant, res.body.data.uuid, undefined, 55_000);
      const fast = spy.mock.results.some((r) => r.type === 'return');
      return { done, fast };
    } finally {
      spy.mockRestore();
    }
  };

  const CLEAN =
    'sku,price,in_stock,launched,site,notes\n' +
    'A-1,9.99,true,2026-01-02,https://x.io/a,"says ""hi"", twice"\n' +
    'B-2,19,FALSE,2025-12-31,https://x.io/b,\n' +
    'C-3,0.5,false,2024-02-29,https://x.io/c,"two\nlines"\n' +
    'D-4,,true,,,""\n';
  /** The first record of CLEAN, as the API answers it. */
  const CLEAN_FIRST = {
    sku: 'A-1',
    price: 9.99,
    in_stock: true,
    launched: '2026-01-02',
    site: 'https://x.io/a',
    notes: 'says "hi", twice',
  };

  it('stores a clean CSV through PostgreSQL and a messy one through the general reader, with the same result', async () => {
    const clean = await importCsv('clean', CLEAN);
    expect(clean.fast).toBe(true);
    // A blank line is skipped by the general reader; PostgreSQL would refuse it, so the file takes that reader.
    const messy = await importCsv('messy', CLEAN.replace('B-2', '\nB-2'));
    expect(messy.fast).toBe(false);
    for (const { done } of [clean, messy]) {
      expect(done).toMatchObject({ status: 2, error: null, records_count: 4 });
      expect(done.columns.map((c) => [c.name, c.type])).toEqual([
        ['sku', 'text'],
        ['price', 'number'],
        ['in_stock', 'boolean'],
        ['launched', 'date'],
        ['site', 'url'],
        ['notes', 'text'],
      ]);
    }
    const a = await records(clean.done.uuid);
    const b = await records(messy.done.uuid);
    expect(a.map((r) => r.data)).toEqual(b.map((r) => r.data));
    expect(a.map((r) => r.id)).toEqual([1, 2, 3, 4]);
    expect(a[0].data).toEqual(CLEAN_FIRST);
    expect(a[1].data).toMatchObject({ price: 19, in_stock: false, notes: null });
    expect(a[2].data.notes).toBe('two\nlines');
    // Empty fields, quoted or not, are null.
    expect(a[3].data).toMatchObject({ price: null, launched: null, site: null, notes: null });
  });

  it('reads semicolon and tab files on the fast path, and widens a column whose later values do not fit', async () => {
    const lines = ['code;label'];
    for (let i = 0; i < 1200; i++) lines.push(`${i};item ${i}`);
    lines.push('A-1;last');
    const semi = await importCsv('semi', `${lines.join('\n')}\n`);
    expect(semi.fast).toBe(true);
    expect(semi.done.columns).toEqual([
      { id: 1, name: 'code', type: 'text' },
      { id: 2, name: 'label', type: 'text' },
    ]);
    expect((await records(semi.done.uuid))[0].data).toEqual({ code: '0', label: 'item 0' });
    const tab = await importCsv('tab', 'n\tok\n1\ttrue\n2\tfalse\n');
    expect(tab.fast).toBe(true);
    expect((await records(tab.done.uuid)).map((r) => r.data)).toEqual([
      { n: 1, ok: true },
      { n: 2, ok: false },
    ]);
  });

  it('leaves files PostgreSQL would read otherwise to the general reader: an end-of-data line, ragged rows', async () => {
    // Past the first lines, which decide that the file is CSV at all.
    const head = `a,b\n${Array.from({ length: 10 }, (_, i) => `${i},${i}`).join('\n')}\n`;
    const marker = await importCsv('marker', `${head}\\.\n3,4\n`);
    expect(marker.fast).toBe(false);
    expect(marker.done).toMatchObject({ status: 2, records_count: 12 });
    const ragged = await importCsv('ragged', `${head}1\n2,3,4\n`);
    expect(ragged.fast).toBe(false);
    expect((await records(ragged.done.uuid)).slice(10).map((r) => r.data)).toEqual([
      { a: 1, b: null },
      { a: 2, b: 3 },
    ]);
  });

  it('keeps record writes typed on an imported table, and syncs typed values', async () => {
    const { done } = await importCsv('typed', CLEAN);
    const added = await suite.tenant.http
      .post(`/api/v1/data/${done.uuid}/records`)
      .send({ record: { sku: 'E-5', price: 12.5, in_stock: false } });
    expect(added.status).toBe(201);
    expect(added.body.data[0]).toMatchObject({ id: 5, data: { sku: 'E-5', price: 12.5, in_stock: false } });
    const bad = await suite.tenant.http
      .post(`/api/v1/data/${done.uuid}/records`)
      .send({ record: { price: 'x' } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.field).toBe('record.price');
    const put = await suite.tenant.http
      .put(`/api/v1/data/${done.uuid}/records/5`)
      .send({ record: { price: 13 } });
    expect(put.body.data.data).toMatchObject({ sku: 'E-5', price: 13 });

    const agent = await createAgent(suite.app, suite.tenant);
    await suite.tenant.http.post(`/api/v1/data/${done.uuid}/assign`).send({ agent_uuid: agent.id });
    await suite.tenant.http.post(`/api/v1/data/${done.uuid}/sync`);
    await waitFor(suite.tenant, done.uuid, synced);
    const hits = await suite.tenant.http.get(`/api/v1/agents/${agent.id}/knowledge/search?q=twice`);
    expect(hits.body.data).toHaveLength(1);
    expect(hits.body.data[0].record).toEqual({ id: 1, kind: 'row', data: CLEAN_FIRST });
  });

  it('replaces the table on a re-run; a reader holding the old table is answered from the new one', async () => {
    const paste = await suite.tenant.http
      .post('/api/v1/data/import/copypaste')
      .send({ name: 'P', data: 'First text.' });
    const id = paste.body.data.uuid as string;
    await waitFor(suite.tenant, id);
    const [before] = (await db.query(
      `SELECT id, workspace_id AS "workspaceId", records_table AS "recordsTable", columns FROM data_sources WHERE id = $1`,
      [id],
    )) as { id: string; workspaceId: WorkspaceId; recordsTable: string; columns: [] }[];
    await db.query(`UPDATE data_sources SET options = options || '{"text": "Second text."}' WHERE id = $1`, [
      id,
    ]);
    await suite.app.get<ImportsService>(ImportsService).run(suite.tenant.workspaceId, id, true);
    expect(await tablesOf(id)).toHaveLength(1);
    expect(await tablesOf(id)).not.toContain(before.recordsTable);
    const [rows, total] = await suite.app.get<RecordsRepository>(RecordsRepository).list(before, 0, 10);
    expect(total).toBe(1);
    expect(rows[0].data.content).toBe('Second text.');
  });

  /** A CSV past the size that is stored over two connections, with quoted line breaks on the way. */
  const bigCsv = (rows: number) => {
    const lines = ['id,note,price'];
    for (let i = 1; i <= rows; i++)
      lines.push(`${i},"note ${i}, ${'padding '.repeat(10)}${i % 97 === 0 ? '\nsecond line' : ''}",${i}.5`);
    return `${lines.join('\n')}\n`;
  };

  it('stores a large clean CSV over two connections at once, every row once', async () => {
    const rows = 90_000;
    const csv = bigCsv(rows);
    expect(csv.length).toBeGreaterThan(SPLIT_MIN_BYTES);
    const { done, fast } = await importCsv('big', csv);
    expect(fast).toBe(true);
    expect(done).toMatchObject({ status: 2, records_count: rows });
    expect(done.columns.map((c) => c.type)).toEqual(['number', 'text', 'number']);
    const [{ n, distinct, min, max }] = (await db.query(
      `SELECT count(*)::int AS n, count(DISTINCT c1)::int AS distinct, min(c1::int) AS min, max(c1::int) AS max
       FROM knowledge_data."${(await tablesOf(done.uuid))[0]}"`,
    )) as { n: number; distinct: number; min: number; max: number }[];
    expect({ n, distinct, min, max }).toEqual({ n: rows, distinct: rows, min: 1, max: rows });
    const page = (await suite.tenant.http.get(`/api/v1/data/${done.uuid}/records?per_page=1&page=97`)).body
      .data;
    expect(page.items[0].data).toMatchObject({ id: 97, price: 97.5 });
    expect(page.items[0].data.note).toContain('\nsecond line');
    expect(await tablesOf(done.uuid)).toHaveLength(1);
    // The next record takes the id after the file's last.
    const added = await suite.tenant.http
      .post(`/api/v1/data/${done.uuid}/records`)
      .send({ record: { id: 0 } });
    expect(added.body.data[0].id).toBe(rows + 1);
  }, 60_000);

  it('leaves no table behind when PostgreSQL refuses the second part', async () => {
    // A ragged last row: the second COPY fails after the first has stored its half.
    const { done, fast } = await importCsv('big-ragged', `${bigCsv(90_000)}1,2\n`);
    expect(fast).toBe(false);
    expect(done).toMatchObject({ status: 2, records_count: 90_001 });
    expect(await tablesOf(done.uuid)).toHaveLength(1);
  }, 60_000);

  it('sweeps tables that no data source points at and no import is filling', async () => {
    const stray = newTableName(randomUUID());
    await db.query(createTableSql(stray, [1], true));
    const { done } = await importCsv('kept', CLEAN);
    const dropped = await suite.app.get<SweepRecordTablesProcessor>(SweepRecordTablesProcessor).handle();
    expect(dropped.dropped).toBeGreaterThanOrEqual(1);
    expect((await db.query(`SELECT to_regclass($1) AS t`, [`knowledge_data.${stray}`]))[0].t).toBeNull();
    expect(await tablesOf(done.uuid)).toHaveLength(1);
  });

  it('drops the records table with its data source, and with its workspace', async () => {
    const { done } = await importCsv('gone', CLEAN);
    expect(await tablesOf(done.uuid)).toHaveLength(1);
    expect((await suite.tenant.http.delete(`/api/v1/data/${done.uuid}`)).status).toBe(200);
    expect(await tablesOf(done.uuid)).toEqual([]);

    const doomed = await createTenant(suite.app);
    const table = await doomed.http
      .post('/api/v1/data/tables')
      .send({ name: 'T', columns: [{ name: 'a', type: 'text' }] });
    expect(await tablesOf(table.body.data.uuid)).toHaveLength(1);
    await db.query(`DELETE FROM workspaces WHERE id = $1`, [doomed.workspaceId]);
    expect(await tablesOf(table.body.data.uuid)).toEqual([]);
  });
});
