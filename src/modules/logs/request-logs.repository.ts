import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { newId } from '@/common/persistence/base.entity';
import { Sweep } from '@/common/persistence/sweep';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { RequestLogEntry } from './request-log.entity';

/** A request as the buffer holds it until the next batch insert. */
export interface RequestLogRow {
  workspaceId: WorkspaceId;
  requestId: string;
  method: string;
  path: string;
  query: Record<string, string | string[]> | null;
  status: number;
  durationMs: number;
  ip: string | null;
  userAgent: string | null;
  tokenId: string | null;
  /** Epoch milliseconds of the answer. */
  createdAt: number;
}

export interface RequestLogFilter {
  method?: string;
  pathPrefix?: string;
  status?: { from: number; to: number };
  tokenId?: string;
  from?: Date;
  to?: Date;
  skip: number;
  take: number;
}

/** A log row with its token's name and last four characters. */
export interface RequestLogView extends RequestLogEntry {
  tokenName: string | null;
  tokenLastFour: string | null;
}

const COLUMNS = 12;

@Injectable()
export class RequestLogsRepository extends WorkspaceScopedRepository<RequestLogEntry> {
  constructor(@InjectRepository(RequestLogEntry) repo: Repository<RequestLogEntry>) {
    super(repo);
  }

  /** One multi-row INSERT for a batch of rows of any workspaces (each row names its own). */
  async insertBatch(rows: RequestLogRow[]): Promise<void> {
    if (!rows.length) return;
    const values: unknown[] = [];
    const tuples = rows.map((r) => {
      const p = values.length;
      // Ids and dates are made here, at flush time, not on the request path.
      values.push(
        newId(),
        r.workspaceId,
        r.requestId,
        r.method,
        r.path,
        r.query ? JSON.stringify(r.query) : null,
        r.status,
        r.durationMs,
        r.ip,
        r.userAgent,
        r.tokenId,
        new Date(r.createdAt),
      );
      return `(${Array.from({ length: COLUMNS }, (_, i) => `$${p + i + 1}`).join(', ')})`;
    });
    await this.sql(
      `INSERT INTO request_logs
         (id, workspace_id, request_id, method, path, query, status, duration_ms, ip, user_agent, token_id,
          created_at)
       VALUES ${tuples.join(', ')}`,
      values,
    );
  }

  /** Newest first, with the token's name and last four. */
  async list(workspaceId: WorkspaceId, f: RequestLogFilter): Promise<[RequestLogView[], number]> {
    const qb = this.query(workspaceId, 'l');
    if (f.method) qb.andWhere('l.method = :method', { method: f.method });
    if (f.pathPrefix)
      qb.andWhere(`l.path LIKE :prefix ESCAPE '\\'`, {
        prefix: `${f.pathPrefix.replace(/[\\%_]/g, '\\$&')}%`,
      });
    if (f.status) qb.andWhere('l.status BETWEEN :sfrom AND :sto', { sfrom: f.status.from, sto: f.status.to });
    if (f.tokenId) qb.andWhere('l.token_id = :token', { token: f.tokenId });
    if (f.from) qb.andWhere('l.created_at >= :from', { from: f.from });
    if (f.to) qb.andWhere('l.created_at <= :to', { to: f.to });
    const [rows, total] = await qb
      .orderBy('l.created_at', 'DESC')
      .addOrderBy('l.id', 'DESC')
      .skip(f.skip)
      .take(f.take)
      .getManyAndCount();
    return [await this.withTokens(workspaceId, rows), total];
  }

  async view(workspaceId: WorkspaceId, id: string): Promise<RequestLogView | null> {
    const row = await this.findById(workspaceId, id);
    return row ? (await this.withTokens(workspaceId, [row]))[0] : null;
  }

  private async withTokens(workspaceId: WorkspaceId, rows: RequestLogEntry[]): Promise<RequestLogView[]> {
    const ids = [...new Set(rows.map((r) => r.tokenId).filter((x): x is string => !!x))];
    const tokens = ids.length
      ? await this.sql<Array<{ id: string; name: string; last_four: string }>>(
          `SELECT id, name, last_four FROM api_tokens WHERE workspace_id = $1 AND id = ANY($2::uuid[])`,
          [workspaceId, ids],
        )
      : [];
    const byId = new Map(tokens.map((t) => [t.id, t]));
    return rows.map((r) =>
      Object.assign(r, {
        tokenName: r.tokenId ? (byId.get(r.tokenId)?.name ?? null) : null,
        tokenLastFour: r.tokenId ? (byId.get(r.tokenId)?.last_four ?? null) : null,
      }),
    );
  }

  /** Retention: deletes rows older than `days` in every workspace, a batch at a time; answers how many went. */
  @Sweep('retention')
  async purgeOlderThan(
    table: 'request_logs' | 'action_logs',
    days: number,
    batchSize: number,
  ): Promise<number> {
    const [, deleted] = await this.sql<[unknown, number]>(
      `DELETE FROM ${table} WHERE id IN (
         SELECT id FROM ${table} WHERE created_at < now() - make_interval(days => $1) LIMIT $2)`,
      [days, batchSize],
    );
    return deleted;
  }
}
