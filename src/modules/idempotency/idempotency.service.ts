import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { AppException } from '@/common/errors/app.exception';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { IdempotencyRepository } from './idempotency.repository';

export type Begin =
  { kind: 'proceed' } | { kind: 'replay'; status: number; headers: Record<string, string>; body: string };

/** Canonical JSON (sorted keys) so that the same body always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${path}\n${canonicalJson(body ?? null)}`)
    .digest('hex');
}

@Injectable()
export class IdempotencyService {
  constructor(private readonly keys: IdempotencyRepository) {}

  async begin(workspaceId: WorkspaceId, key: string, hash: string): Promise<Begin> {
    if (await this.keys.claim(workspaceId, key, hash)) return { kind: 'proceed' };
    const existing = await this.keys.findOne(workspaceId, { key });
    if (!existing) return this.begin(workspaceId, key, hash); // released meanwhile
    if (existing.requestHash !== hash)
      throw new AppException(
        'IDEMPOTENCY_KEY_REUSED',
        'This Idempotency-Key was already used with another request body',
        { field: 'Idempotency-Key' },
      );
    if (existing.state === 'completed')
      return {
        kind: 'replay',
        status: existing.responseStatus ?? 200,
        headers: existing.responseHeaders ?? {},
        body: existing.responseBody ?? '',
      };
    if (await this.keys.takeOverStale(workspaceId, key, hash)) return { kind: 'proceed' };
    throw new AppException(
      'IDEMPOTENCY_KEY_IN_USE',
      'A request with this Idempotency-Key is still being processed',
    );
  }

  complete(
    workspaceId: WorkspaceId,
    key: string,
    status: number,
    headers: Record<string, string>,
    body: string,
  ) {
    return this.keys.complete(workspaceId, key, status, headers, body);
  }

  release(workspaceId: WorkspaceId, key: string): Promise<void> {
    return this.keys.release(workspaceId, key);
  }

  purgeExpired(batchSize = 1000): Promise<number> {
    return this.keys.purgeExpired(batchSize);
  }
}
