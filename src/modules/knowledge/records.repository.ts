import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { PoolClient } from 'pg';
import { DataSource as Db, EntityManager, QueryRunner } from 'typeorm';
import { Sweep } from '@/common/persistence/sweep';
import { Column, decodeValue, encodeValue, Row } from './column-types';
import { RecordsLoad, SideConnection } from './records-load';
import {
  columnName,
  createTableSql,
  newTableName,
  qualified,
  RECORDS_SCHEMA,
  recordTextSql,
} from './records-table';
import { lockUntilCommit } from '@/common/persistence/advisory-lock';
import type { WorkspaceId } from '@/common/auth/workspace-id';

export interface RecordRow {
  id: number;
  data: Row;
  createdAt: Date;
  updatedAt: Date;
}

/** What the repository needs of a data source to reach its records. */
export interface RecordsSource {
  id: string;
  workspaceId: WorkspaceId;
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

  /**
   * The rows as they are now that hold any word of `query` (English stemming), best first by cover density
   * (`ts_rank_cd`, as the knowledge ranking's last term); the `ai_query` tool of intents.
   */
  async search(
    source: RecordsSource,
    query: string,
    limit: number,
  ): Promise<(RecordRow & { score: number })[]> {
    return this.onTable(source, [] as (RecordRow & { score: number })[], async (table, columns) => {
      const doc = `to_tsvector('english', left(${recordTextSql(columns, 'r')}, 100000))`;
      const select = ['id', 'created_at', 'updated_at', ...columns.map((c) => columnName(c.id))]
        .map((c) => `r.${c}`)
        .join(', ');
      const rows = (await this.db.query(
        `WITH q AS (
           SELECT string_agg(quote_literal(w), ' | ')::tsquery AS q
           FROM unnest(tsvector_to_array(to_tsvector('english', $1))) AS w
         )
         SELECT ${select}, ts_rank_cd(${doc}, q.q, 1) AS score
         FROM ${qualified(table)} r CROSS JOIN q
         WHERE q.q IS NOT NULL AND ${doc} @@ q.q
         ORDER BY score DESC, r.id
         LIMIT $2`,
        [query.slice(0, 2000), limit],
      )) as (RawRecord & { score: number })[];
      return rows.map((r) => ({ ...toRow(columns, r), score: Math.round(Number(r.score) * 10000) / 10000 }));
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
      await lockUntilCommit(runner, 'knowledge-import', dataSourceId);
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
  @Sweep('reconciliation')
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
  @Sweep('reconciliation')
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
