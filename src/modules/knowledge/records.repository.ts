import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { CopyStreamQuery, from as copyFrom } from 'pg-copy-streams';
import { DataSource as Db, EntityManager, QueryRunner } from 'typeorm';
import { Column, decodeValue, encodeValue, Row } from './column-types';
import { columnName, createTableSql, newTableName, qualified, RECORDS_SCHEMA } from './records-table';

export interface RecordRow {
  id: number;
  data: Row;
  createdAt: Date;
  updatedAt: Date;
}

/** What the repository needs of a data source to reach its records. */
export interface RecordsSource {
  id: string;
  workspaceId: string;
  recordsTable: string | null;
  columns: Column[];
}

type RawRecord = { id: string; created_at: Date; updated_at: Date } & Record<string, unknown>;

/** PostgreSQL's undefined_table: the table was swapped for a new one (an import finished) under a reader. */
const UNDEFINED_TABLE = '42P01';

function toRow(columns: Column[], r: RawRecord): RecordRow {
  const data: Row = {};
  for (const c of columns) data[c.name] = decodeValue(c.type, (r[columnName(c.id)] as string | null) ?? null);
  return { id: Number(r.id), data, createdAt: r.created_at, updatedAt: r.updated_at };
}

/** One row as a line of COPY text format: tab-separated, `\N` for null, backslash escapes. */
export function copyTextLine(values: (string | null)[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) line += '\t';
    if (v === null) line += '\\N';
    else if (/[\\\t\n\r]/.test(v))
      line += v.replace(/[\\\t\n\r]/g, (ch) =>
        ch === '\\' ? '\\\\' : ch === '\t' ? '\\t' : ch === '\n' ? '\\n' : '\\r',
      );
    else line += v;
  }
  return `${line}\n`;
}

async function endCopy(stream: CopyStreamQuery): Promise<void> {
  const done = new Promise<void>((resolve, reject) => {
    stream.once('finish', resolve);
    stream.once('error', reject);
  });
  stream.end();
  await done;
}

async function abortCopy(stream: CopyStreamQuery, err: unknown): Promise<void> {
  // Destroying the stream with an error sends CopyFail, so the connection stays usable for the rollback.
  if (!stream.destroyed) stream.destroy(err instanceof Error ? err : new Error(String(err)));
  // Settles at once for a stream that is already closed (a COPY that failed by itself).
  await finished(stream).catch(() => undefined);
}

/** Feeds one COPY and ends it; rejects with PostgreSQL's error as soon as there is one. */
async function runCopy(
  copy: CopyStreamQuery,
  feed: (copy: NodeJS.WritableStream) => Promise<void>,
): Promise<void> {
  const failed = new Promise<never>((_, reject) => copy.once('error', reject));
  failed.catch(() => undefined);
  const feeding = feed(copy);
  // Whichever settles second is awaited by nobody: keep its rejection from going unhandled.
  feeding.catch(() => undefined);
  await Promise.race([feeding, failed]);
  await Promise.race([endCopy(copy), failed]);
}

/** One part of a CSV file for COPY: whether it starts with the header, whether each record starts with its id. */
export interface CsvPart {
  header: boolean;
  withIds: boolean;
  feed: (copy: NodeJS.WritableStream) => Promise<void>;
}

/** A connection of the pool outside the import's transaction. */
export interface SideConnection {
  client: PoolClient;
  release(): Promise<void>;
}

/**
 * Fills a fresh records table inside the import's transaction. Rows go in through COPY; a column that shows up
 * mid-stream ends the COPY, is added, and the COPY starts again. The primary key is built after the rows are in.
 */
export class RecordsLoad {
  private current: string;
  private columnIds: number[] = [];
  private created = false;
  private stream: CopyStreamQuery | null = null;
  private pending = '';
  count = 0;
  /**
   * Tables of attempts given up (and, when the import fails, the current one): dropped once the import's
   * transaction is over, since the transaction may hold locks on them (a sequence's, for one) that would make
   * another connection wait, and some were created outside it, so a rollback would not remove them.
   */
  readonly leftovers: string[] = [];

  constructor(
    private readonly client: PoolClient,
    private readonly dataSourceId: string,
    private readonly openSide: () => Promise<SideConnection>,
  ) {
    this.current = newTableName(dataSourceId);
  }

  /** The table being filled. */
  get table(): string {
    return this.current;
  }

  /** Gives up the current table (it goes with the leftovers) and starts over with a fresh one. */
  private renew(): void {
    this.leftovers.push(this.current);
    this.current = newTableName(this.dataSourceId);
    this.created = false;
    this.columnIds = [];
    this.count = 0;
  }

  get started(): boolean {
    return this.created;
  }

  /** Creates the table with these columns and opens a COPY of text rows into it. */
  async start(columnIds: number[]): Promise<void> {
    await this.client.query(createTableSql(this.table, columnIds, false));
    this.created = true;
    this.columnIds = [...columnIds];
    this.open();
  }

  private open(): void {
    // Rows of no column at all (a JSON array of empty objects) still count: they are given their creation time.
    const columns = this.columnIds.length ? this.columnIds.map(columnName).join(', ') : 'created_at';
    this.stream = this.client.query(copyFrom(`COPY ${qualified(this.table)} (${columns}) FROM STDIN`));
  }

  /** Values in the order of the columns given to `start` and `addColumns`. */
  async write(values: (string | null)[]): Promise<void> {
    this.pending += this.columnIds.length ? copyTextLine(values) : 'now\n';
    this.count++;
    if (this.pending.length >= 256 * 1024) await this.flush();
  }

  private async flush(): Promise<void> {
    if (!this.pending || !this.stream) return;
    const ok = this.stream.write(this.pending);
    this.pending = '';
    if (!ok) await once(this.stream, 'drain');
  }

  /** Adds columns between two COPYs (adding a nullable column without a default is instant). */
  async addColumns(ids: number[]): Promise<void> {
    if (!ids.length) return;
    await this.flush();
    if (this.stream) await endCopy(this.stream);
    await this.client.query(
      `ALTER TABLE ${qualified(this.table)} ${ids.map((id) => `ADD COLUMN ${columnName(id)} text`).join(', ')}`,
    );
    this.columnIds.push(...ids);
    this.open();
  }

  /**
   * The fast path for a clean CSV file: PostgreSQL parses it (`FORMAT csv`) into a table made for it. Each part
   * is a COPY of its own, the first on the import's connection and the second on another one, so that two
   * backends read at once (the second part's records come with their ids, which follow the first part's). The
   * second connection is outside the import's transaction, so the table is created (empty, and referenced by
   * nothing, so invisible to readers) and committed first. Answers the rows stored by each part, or the error
   * when PostgreSQL refused the file; then the attempt's table is given up and the caller takes the slower path.
   */
  async copyCsv(
    columnIds: number[],
    delimiter: string,
    parts: CsvPart[],
  ): Promise<{ rows: number[] } | { error: Error }> {
    const side = parts.length > 1 ? await this.openSide() : null;
    const columns = columnIds.map(columnName).join(', ');
    const sql = (part: CsvPart) =>
      `COPY ${qualified(this.table)} (${part.withIds ? 'id, ' : ''}${columns}) FROM STDIN WITH (FORMAT csv, ` +
      `HEADER ${part.header}, ` +
      `DELIMITER ${delimiter === '\t' ? `E'\\t'` : `'${delimiter}'`}, FORCE_NULL (${columns}))`;
    try {
      if (side) {
        // Listed at once: from here on, a failure anywhere must not leave it behind.
        this.leftovers.push(this.table);
        await side.client.query(createTableSql(this.table, columnIds, false));
      }
      await this.client.query('SAVEPOINT csv_copy');
      if (!side) await this.client.query(createTableSql(this.table, columnIds, false));
      const clients = side ? [this.client, side.client] : [this.client];
      const copies = parts.map((part, i) => clients[i].query(copyFrom(sql(part))));
      // A COPY that PostgreSQL refused is over on its connection; the others are stopped with CopyFail.
      const refused = new Set<CopyStreamQuery>();
      for (const c of copies) c.once('error', () => refused.add(c));
      const runs = parts.map((part, i) => runCopy(copies[i], part.feed));
      // The first failure stops the other COPY too.
      const stopAll = (err: unknown) =>
        Promise.all(copies.filter((c) => !refused.has(c)).map((c) => abortCopy(c, err)));
      const settled = await Promise.allSettled(
        runs.map((r) =>
          r.catch(async (err) => {
            await stopAll(err);
            throw err;
          }),
        ),
      );
      const failure = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failure) {
        await this.client.query('ROLLBACK TO SAVEPOINT csv_copy');
        this.renew();
        const err: unknown = failure.reason;
        return { error: err instanceof Error ? err : new Error(String(err)) };
      }
      await this.client.query('RELEASE SAVEPOINT csv_copy');
      // Stored and kept: it is no leftover (unless the import fails, see replaceAll).
      if (side) this.leftovers.pop();
      this.created = true;
      this.columnIds = [...columnIds];
      this.count = copies.reduce((n, c) => n + c.rowCount, 0);
      return { rows: copies.map((c) => c.rowCount) };
    } finally {
      await side?.release();
    }
  }

  /** Ends the COPY and builds the primary key; a load that saw no rows still leaves an (empty) table. */
  async finish(columnIds: number[]): Promise<void> {
    if (!this.created) await this.start(columnIds);
    await this.flush();
    if (this.stream) await endCopy(this.stream);
    this.stream = null;
    const missing = columnIds.filter((id) => !this.columnIds.includes(id));
    if (missing.length)
      await this.client.query(
        `ALTER TABLE ${qualified(this.table)} ${missing.map((id) => `ADD COLUMN ${columnName(id)} text`).join(', ')}`,
      );
    await this.client.query(`ALTER TABLE ${qualified(this.table)} ADD PRIMARY KEY (id)`);
    // Rows given their ids (a CSV's second part) leave the identity behind: the next row takes the id after.
    await this.client.query(
      `SELECT setval(pg_get_serial_sequence($1, 'id'), max(id)) FROM ${qualified(this.table)} HAVING max(id) IS NOT NULL`,
      [qualified(this.table)],
    );
  }

  /** Gives up what a fast-path COPY stored, so that the load can start again from nothing. */
  discard(): void {
    this.renew();
  }

  async abort(err: unknown): Promise<void> {
    if (this.stream) await abortCopy(this.stream, err);
    this.stream = null;
  }

  /** Turns the plain text of the first `rows` rows of a column into JSON strings (it became a json column). */
  async quoteAsJson(columnId: number, rows: number): Promise<void> {
    const c = columnName(columnId);
    await this.client.query(
      `UPDATE ${qualified(this.table)} SET ${c} = to_jsonb(${c})::text WHERE id <= $1 AND ${c} IS NOT NULL`,
      [rows],
    );
  }
}

/**
 * The records of every data source, each in its own table (see records-table.ts). Callers pass the data source
 * they loaded for the workspace, so a table is only ever reached through its owner's row.
 */
@Injectable()
export class RecordsRepository {
  constructor(@InjectDataSource() private readonly db: Db) {}

  /** Runs `work` on the source's table; if an import swapped the table meanwhile, once more on the new one. */
  private async onTable<T>(
    source: RecordsSource,
    empty: T,
    work: (table: string, columns: Column[]) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      if (!source.recordsTable) return empty;
      try {
        return await work(source.recordsTable, source.columns);
      } catch (err) {
        if ((err as { code?: string }).code !== UNDEFINED_TABLE || attempt > 0) throw err;
        source = await this.reload(source);
      }
    }
  }

  private async reload(source: RecordsSource): Promise<RecordsSource> {
    const rows = (await this.db.query(
      `SELECT records_table, columns FROM data_sources WHERE workspace_id = $1 AND id = $2`,
      [source.workspaceId, source.id],
    )) as { records_table: string | null; columns: Column[] }[];
    return { ...source, recordsTable: rows[0]?.records_table ?? null, columns: rows[0]?.columns ?? [] };
  }

  private selectList(columns: Column[]): string {
    return ['id', 'created_at', 'updated_at', ...columns.map((c) => columnName(c.id))].join(', ');
  }

  async list(source: RecordsSource, skip: number, take: number): Promise<[RecordRow[], number]> {
    return this.onTable(source, [[], 0] as [RecordRow[], number], async (table, columns) => {
      const rows = (await this.db.query(
        `SELECT ${this.selectList(columns)} FROM ${qualified(table)} ORDER BY id LIMIT $1 OFFSET $2`,
        [take, skip],
      )) as RawRecord[];
      const [{ n }] = (await this.db.query(`SELECT count(*)::int AS n FROM ${qualified(table)}`)) as {
        n: number;
      }[];
      return [rows.map((r) => toRow(columns, r)), n];
    });
  }

  async count(source: RecordsSource): Promise<number> {
    return this.onTable(source, 0, async (table) => {
      const [{ n }] = (await this.db.query(`SELECT count(*)::int AS n FROM ${qualified(table)}`)) as {
        n: number;
      }[];
      return n;
    });
  }

  /** Creates the records table of a new typed table, in the transaction that creates its data source. */
  async createTable(manager: EntityManager, dataSourceId: string, columns: Column[]): Promise<string> {
    const table = newTableName(dataSourceId);
    await manager.query(
      createTableSql(
        table,
        columns.map((c) => c.id),
        true,
      ),
    );
    return table;
  }

  /** Adds rows in one statement, in order; a source with no table yet (an import not done) gets one. */
  async insertMany(source: RecordsSource, rows: Row[]): Promise<RecordRow[]> {
    if (!source.recordsTable) source = await this.ensureTable(source);
    return this.onTable(source, [], async (table, columns) => {
      const encoded = rows.map((r) => columns.map((c) => encodeValue(c.type, r[c.name])));
      const values = columns.map((c, i) => `e ->> ${i}`).join(', ');
      const inserted = (await this.db.query(
        columns.length
          ? `INSERT INTO ${qualified(table)} (${columns.map((c) => columnName(c.id)).join(', ')})
             SELECT ${values} FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS t(e, n) ORDER BY n
             RETURNING ${this.selectList(columns)}`
          : `INSERT INTO ${qualified(table)} (created_at)
             SELECT now() FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS t(e, n) ORDER BY n
             RETURNING ${this.selectList(columns)}`,
        [JSON.stringify(encoded)],
      )) as RawRecord[];
      return inserted.map((r) => toRow(columns, r));
    });
  }

  private async ensureTable(source: RecordsSource): Promise<RecordsSource> {
    await this.db
      .transaction(async (m) => {
        const table = await this.createTable(m, source.id, source.columns);
        const [, claimed] = (await m.query(
          `UPDATE data_sources SET records_table = $3 WHERE workspace_id = $1 AND id = $2 AND records_table IS NULL`,
          [source.workspaceId, source.id, table],
        )) as [unknown, number];
        // Another writer got there first: keep its table, drop this one with the rollback.
        if (!claimed) throw new TableClaimed();
      })
      .catch((err) => {
        if (!(err instanceof TableClaimed)) throw err;
      });
    return this.reload(source);
  }

  /** Sets the values sent, leaving the others as they are. */
  async update(source: RecordsSource, id: number, data: Row): Promise<RecordRow | null> {
    return this.onTable(source, null, async (table, columns) => {
      const sent = columns.filter((c) => Object.prototype.hasOwnProperty.call(data, c.name));
      const sets = sent.map((c, i) => `${columnName(c.id)} = $${i + 2}`);
      const [rows] = (await this.db.query(
        `UPDATE ${qualified(table)} SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE id = $1
         RETURNING ${this.selectList(columns)}`,
        [id, ...sent.map((c) => encodeValue(c.type, data[c.name]))],
      )) as [RawRecord[], number];
      return rows.length ? toRow(columns, rows[0]) : null;
    });
  }

  async delete(source: RecordsSource, id: number): Promise<boolean> {
    return this.onTable(source, false, async (table) => {
      const [, affected] = (await this.db.query(`DELETE FROM ${qualified(table)} WHERE id = $1`, [id])) as [
        unknown,
        number,
      ];
      return affected > 0;
    });
  }

  /**
   * Replaces every record of the data source in one transaction: `fill` loads a fresh table, and `finish`
   * (same transaction) points the data source at it, which drops the old table. A failure rolls all of it
   * back: readers see the old records until the commit and the new ones after, never a half-imported source.
   */
  async replaceAll<T>(
    dataSourceId: string,
    fill: (load: RecordsLoad) => Promise<T>,
    finish: (manager: EntityManager, result: T, load: RecordsLoad) => Promise<void>,
  ): Promise<T> {
    const runner: QueryRunner = this.db.createQueryRunner();
    await runner.connect();
    let load: RecordsLoad | null = null;
    try {
      await runner.startTransaction();
      // Two runs of one import (a retry beside a stalled run) take turns.
      await runner.query(`SELECT pg_advisory_xact_lock(hashtextextended('knowledge-import:' || $1, 0))`, [
        dataSourceId,
      ]);
      // What earlier runs that crashed left behind (tables no data source points at) goes first.
      await this.dropUnreferenced(runner.manager, dataSourceId);
      const client = (await runner.connect()) as PoolClient;
      load = new RecordsLoad(client, dataSourceId, () => this.openSide());
      let result: T;
      try {
        result = await fill(load);
      } catch (err) {
        await load.abort(err);
        throw err;
      }
      await finish(runner.manager, result, load);
      await runner.commitTransaction();
      return result;
    } catch (err) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      // The current table may have been created outside the transaction, which the rollback does not undo.
      load?.leftovers.push(load.table);
      throw err;
    } finally {
      await runner.release();
      // The transaction is over: nothing waits on its locks. What a crash leaves, the next run or the sweep drops.
      for (const table of load?.leftovers ?? [])
        await this.db.query(`DROP TABLE IF EXISTS ${qualified(table)}`).catch(() => undefined);
    }
  }

  private async openSide(): Promise<SideConnection> {
    const runner = this.db.createQueryRunner();
    const client = (await runner.connect()) as PoolClient;
    return { client, release: () => runner.release() };
  }

  /** Drops the records tables of this data source that its row does not point at. */
  async dropUnreferenced(manager: EntityManager, dataSourceId: string): Promise<number> {
    const tables = (await manager.query(
      `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relname LIKE $2
         AND NOT EXISTS (SELECT 1 FROM data_sources d WHERE d.records_table = c.relname)`,
      [RECORDS_SCHEMA, `r\\_${dataSourceId.replaceAll('-', '')}\\_%`],
    )) as { name: string }[];
    for (const { name } of tables) await manager.query(`DROP TABLE IF EXISTS ${qualified(name)}`);
    return tables.length;
  }

  /**
   * The sweep for tables that no data source points at and that no import is filling (their data source is gone
   * or not processing): what a crashed import left. Answers how many were dropped.
   */
  async dropOrphans(): Promise<number> {
    const tables = (await this.db.query(
      `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = $1 AND c.relkind = 'r'
         AND NOT EXISTS (SELECT 1 FROM data_sources d WHERE d.records_table = c.relname)
         AND NOT EXISTS (SELECT 1 FROM data_sources d
                         WHERE replace(d.id::text, '-', '') = substr(c.relname, 3, 32) AND d.status = 1)`,
      [RECORDS_SCHEMA],
    )) as { name: string }[];
    for (const { name } of tables) await this.db.query(`DROP TABLE IF EXISTS ${qualified(name)}`);
    return tables.length;
  }
}

class TableClaimed extends Error {}
