import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { once } from 'node:events';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { DataSource as Db, EntityManager, QueryRunner } from 'typeorm';
import type { WorkspaceId } from '@/common/persistence/workspace-scoped.repository';
import type { Row } from './column-types';

export interface RecordRow {
  id: number;
  data: Row;
  createdAt: Date;
  updatedAt: Date;
}

interface RawRecord {
  id: string;
  data: Row;
  created_at: Date;
  updated_at: Date;
}

const toRow = (r: RawRecord): RecordRow => ({
  id: Number(r.id),
  data: r.data,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** One record as a line of COPY text format: JSON with backslashes doubled and NUL escapes removed (jsonb refuses them). */
export function copyLine(workspaceId: string, dataSourceId: string, data: Row): string {
  const json = JSON.stringify(data).replace(/(?<!\\)((?:\\\\)*)\\u0000/g, '$1');
  return `${workspaceId}\t${dataSourceId}\t${json.replace(/\\/g, '\\\\')}\n`;
}

/** Streams rows into PostgreSQL with COPY, batching lines and honouring backpressure. */
export class CopyWriter {
  private pending = '';
  count = 0;

  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly workspaceId: string,
    private readonly dataSourceId: string,
  ) {}

  async write(row: Row): Promise<void> {
    this.pending += copyLine(this.workspaceId, this.dataSourceId, row);
    this.count++;
    if (this.pending.length >= 256 * 1024) await this.flush();
  }

  private async flush(): Promise<void> {
    if (!this.pending) return;
    const ok = this.stream.write(this.pending);
    this.pending = '';
    if (!ok) await once(this.stream, 'drain');
  }

  async end(): Promise<void> {
    await this.flush();
    const done = new Promise<void>((resolve, reject) => {
      this.stream.once('finish', resolve);
      this.stream.once('error', reject);
    });
    this.stream.end();
    await done;
  }
}

/** knowledge_records: the rows of every data source. Every method takes the workspace first. */
@Injectable()
export class RecordsRepository {
  constructor(@InjectDataSource() private readonly db: Db) {}

  private run(manager?: EntityManager) {
    return manager ?? this.db.manager;
  }

  async list(
    workspaceId: WorkspaceId,
    dataSourceId: string,
    skip: number,
    take: number,
  ): Promise<[RecordRow[], number]> {
    const rows = (await this.db.query(
      `SELECT id, data, created_at, updated_at FROM knowledge_records
       WHERE workspace_id = $1 AND data_source_id = $2 ORDER BY id LIMIT $3 OFFSET $4`,
      [workspaceId, dataSourceId, take, skip],
    )) as RawRecord[];
    return [rows.map(toRow), await this.count(workspaceId, dataSourceId)];
  }

  async count(workspaceId: WorkspaceId, dataSourceId: string): Promise<number> {
    const [{ n }] = (await this.db.query(
      `SELECT count(*)::int AS n FROM knowledge_records WHERE workspace_id = $1 AND data_source_id = $2`,
      [workspaceId, dataSourceId],
    )) as { n: number }[];
    return n;
  }

  async find(workspaceId: WorkspaceId, dataSourceId: string, id: number): Promise<RecordRow | null> {
    const rows = (await this.db.query(
      `SELECT id, data, created_at, updated_at FROM knowledge_records
       WHERE workspace_id = $1 AND data_source_id = $2 AND id = $3`,
      [workspaceId, dataSourceId, id],
    )) as RawRecord[];
    return rows.length ? toRow(rows[0]) : null;
  }

  async insertMany(
    workspaceId: WorkspaceId,
    dataSourceId: string,
    rows: Row[],
    manager?: EntityManager,
  ): Promise<RecordRow[]> {
    const inserted = (await this.run(manager).query(
      `INSERT INTO knowledge_records (workspace_id, data_source_id, data)
       SELECT $1, $2, d FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS t(d, n) ORDER BY n
       RETURNING id, data, created_at, updated_at`,
      [workspaceId, dataSourceId, JSON.stringify(rows)],
    )) as RawRecord[];
    return inserted.map(toRow);
  }

  /** Merges the values sent into the record. */
  async update(
    workspaceId: WorkspaceId,
    dataSourceId: string,
    id: number,
    data: Row,
  ): Promise<RecordRow | null> {
    const [rows] = (await this.db.query(
      `UPDATE knowledge_records SET data = data || $4::jsonb, updated_at = now()
       WHERE workspace_id = $1 AND data_source_id = $2 AND id = $3
       RETURNING id, data, created_at, updated_at`,
      [workspaceId, dataSourceId, id, JSON.stringify(data)],
    )) as [RawRecord[], number];
    return rows.length ? toRow(rows[0]) : null;
  }

  async delete(workspaceId: WorkspaceId, dataSourceId: string, id: number): Promise<boolean> {
    const [, affected] = (await this.db.query(
      `DELETE FROM knowledge_records WHERE workspace_id = $1 AND data_source_id = $2 AND id = $3`,
      [workspaceId, dataSourceId, id],
    )) as [unknown, number];
    return affected > 0;
  }

  /**
   * Replaces every record of the data source in one transaction: the old rows go, `fill` streams the new ones
   * through COPY, and `finish` runs last in the same transaction. A failure rolls all of it back, so readers
   * never see a half-imported source.
   */
  async replaceAll<T>(
    workspaceId: WorkspaceId,
    dataSourceId: string,
    fill: (writer: CopyWriter) => Promise<T>,
    finish: (manager: EntityManager, result: T) => Promise<void>,
  ): Promise<T> {
    const runner: QueryRunner = this.db.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      await runner.query(`DELETE FROM knowledge_records WHERE workspace_id = $1 AND data_source_id = $2`, [
        workspaceId,
        dataSourceId,
      ]);
      const client = (await runner.connect()) as PoolClient;
      const stream = client.query(
        copyFrom('COPY knowledge_records (workspace_id, data_source_id, data) FROM STDIN'),
      );
      const writer = new CopyWriter(stream, workspaceId, dataSourceId);
      let result: T;
      try {
        result = await fill(writer);
        await writer.end();
      } catch (err) {
        // Ending the COPY with an error aborts it, so the connection is usable for the rollback.
        stream.destroy(err instanceof Error ? err : new Error(String(err)));
        await once(stream, 'close').catch(() => undefined);
        throw err;
      }
      await finish(runner.manager, result);
      await runner.commitTransaction();
      return result;
    } catch (err) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw err;
    } finally {
      await runner.release();
    }
  }

  /** After inference widened columns to text, turns the values already written into strings. */
  async stringifyColumns(
    manager: EntityManager,
    workspaceId: WorkspaceId,
    dataSourceId: string,
    columns: string[],
  ): Promise<void> {
    for (const column of columns) {
      await manager.query(
        `UPDATE knowledge_records SET data = jsonb_set(data, ARRAY[$3::text], to_jsonb(data ->> $3))
         WHERE workspace_id = $1 AND data_source_id = $2 AND jsonb_typeof(data -> $3) IN ('number', 'boolean')`,
        [workspaceId, dataSourceId, column],
      );
    }
  }
}
