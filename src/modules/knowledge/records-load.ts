import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { CopyStreamQuery, from as copyFrom } from 'pg-copy-streams';
import { columnName, createTableSql, newTableName, qualified } from './records-table';

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
 * Fills a fresh records table inside the import's transaction (a CSV file's second part aside, see `copyCsv`).
 * Rows go in through COPY; a column that shows up mid-stream ends the COPY, is added, and the COPY starts again.
 * The primary key is built after the rows are in.
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
