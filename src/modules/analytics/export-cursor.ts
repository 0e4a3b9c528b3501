import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { WorkspaceId } from '@/common/auth/workspace-id';

/** Where a walk of the message export stands: the walk's fixed upper bound and the last row returned. */
export interface ExportPosition {
  /** Exclusive upper bound of created_at for the whole walk (epoch ms), fixed on its first page. */
  horizon: number;
  /** created_at (epoch ms) and uuid of the last message returned; absent before the first row. */
  createdAt?: number;
  id?: string;
}

/** What a cursor is bound to: a cursor only verifies for the same workspace and the same filters. */
export interface ExportScope {
  workspaceId: WorkspaceId;
  channel: string | null;
  agentUuid: string | null;
  from: number | null;
  to: number | null;
}

const VERSION = 1;
const MAC_BYTES = 16;
const UUID_HEX_RE = /^[0-9a-f]{32}$/;

/**
 * Signs and verifies message-export cursors. A cursor is `base64url(payload)` followed by a truncated
 * HMAC-SHA256 of the payload, the workspace and the filters, keyed with a key derived from ENCRYPTION_KEY, so it
 * cannot be forged, edited, or replayed against another workspace or another query.
 */
export class ExportCursorCodec {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(
      hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), 'analytics-export-cursor-v1', 32),
    );
  }

  encode(scope: ExportScope, position: ExportPosition): string {
    // Fixed layout: version (1), horizon (8), created_at (8), id (16). created_at -1 means "no row yet".
    const payload = Buffer.alloc(33);
    payload.writeUInt8(VERSION, 0);
    payload.writeBigInt64BE(BigInt(position.horizon), 1);
    payload.writeBigInt64BE(BigInt(position.createdAt ?? -1), 9);
    if (position.id) Buffer.from(position.id.replace(/-/g, ''), 'hex').copy(payload, 17);
    return Buffer.concat([payload, this.mac(scope, payload)]).toString('base64url');
  }

  /** The position, or null when the cursor is malformed, altered, or was issued for another workspace or query. */
  decode(scope: ExportScope, cursor: string): ExportPosition | null {
    if (typeof cursor !== 'string' || cursor.length > 200 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
    const raw = Buffer.from(cursor, 'base64url');
    if (raw.length !== 33 + MAC_BYTES || raw.toString('base64url') !== cursor) return null;
    const payload = raw.subarray(0, 33);
    if (!timingSafeEqual(raw.subarray(33), this.mac(scope, payload))) return null;
    if (payload.readUInt8(0) !== VERSION) return null;
    const horizon = Number(payload.readBigInt64BE(1));
    const createdAt = Number(payload.readBigInt64BE(9));
    if (createdAt < 0) return { horizon };
    const hex = payload.subarray(17, 33).toString('hex');
    if (!UUID_HEX_RE.test(hex)) return null;
    const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    return { horizon, createdAt, id };
  }

  private mac(scope: ExportScope, payload: Buffer): Buffer {
    const bound = JSON.stringify([
      scope.workspaceId,
      scope.channel,
      scope.agentUuid?.toLowerCase() ?? null,
      scope.from,
      scope.to,
    ]);
    return createHmac('sha256', this.key)
      .update(bound)
      .update('\n')
      .update(payload)
      .digest()
      .subarray(0, MAC_BYTES);
  }
}
