import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { newId } from '@/common/persistence/base.entity';
import { Sweep } from '@/common/persistence/sweep';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { IdempotencyKey } from './idempotency-key.entity';

const TTL = "interval '24 hours'";
/** A key left `processing` this long belongs to a request that died; a retry may take it over. */
const STALE = "interval '60 seconds'";

@Injectable()
export class IdempotencyRepository extends WorkspaceScopedRepository<IdempotencyKey> {
  constructor(@InjectRepository(IdempotencyKey) repo: Repository<IdempotencyKey>) {
    super(repo);
  }

  /** Claims the key for this request; false when a live row already holds it. */
  async claim(workspaceId: WorkspaceId, key: string, requestHash: string): Promise<boolean> {
    await this.sql(
      `DELETE FROM idempotency_keys WHERE workspace_id = $1 AND key = $2 AND expires_at <= now()`,
      [workspaceId, key],
    );
    const rows: unknown[] = await this.sql(
      `INSERT INTO idempotency_keys (id, workspace_id, key, request_hash, state, locked_at, expires_at)
       VALUES ($1, $2, $3, $4, 'processing', now(), now() + ${TTL})
       ON CONFLICT (workspace_id, key) DO NOTHING RETURNING id`,
      [newId(), workspaceId, key, requestHash],
    );
    return rows.length === 1;
  }

  /** Takes over a key whose first request died mid-flight. */
  async takeOverStale(workspaceId: WorkspaceId, key: string, requestHash: string): Promise<boolean> {
    const [rows] = (await this.sql(
      `UPDATE idempotency_keys SET locked_at = now(), updated_at = now()
       WHERE workspace_id = $1 AND key = $2 AND request_hash = $3 AND state = 'processing'
         AND locked_at < now() - ${STALE} RETURNING id`,
      [workspaceId, key, requestHash],
    )) as [unknown[], number];
    return rows.length === 1;
  }

  async complete(
    workspaceId: WorkspaceId,
    key: string,
    status: number,
    headers: Record<string, string>,
    body: string,
  ) {
    await this.updateWhere(
      workspaceId,
      { key },
      { state: 'completed', responseStatus: status, responseHeaders: headers, responseBody: body },
    );
  }

  async release(workspaceId: WorkspaceId, key: string): Promise<void> {
    await this.delete(workspaceId, { key, state: 'processing' });
  }

  /** Deletes expired keys of every workspace in batches; answers how many went. */
  @Sweep('retention')
  async purgeExpired(batchSize: number): Promise<number> {
    let total = 0;
    for (;;) {
      const [, affected] = (await this.sql(
        `DELETE FROM idempotency_keys WHERE id IN (
           SELECT id FROM idempotency_keys WHERE expires_at <= now() LIMIT $1)`,
        [batchSize],
      )) as [unknown, number];
      total += affected;
      if (affected < batchSize) return total;
    }
  }
}
