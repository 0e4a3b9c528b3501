import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { newId } from '@/common/persistence/base.entity';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { TokenRefusal } from './web-call-token';
import { WebCallToken } from './web-call-token.entity';

@Injectable()
export class WebCallTokensRepository extends WorkspaceScopedRepository<WebCallToken> {
  constructor(@InjectRepository(WebCallToken) repo: Repository<WebCallToken>) {
    super(repo);
  }

  async insert(
    m: EntityManager,
    workspaceId: WorkspaceId,
    callId: string,
    tokenHash: string,
    expiresAt: Date,
  ): Promise<void> {
    await this.sql(
      `INSERT INTO web_call_tokens (id, workspace_id, call_id, token_hash, expires_at) VALUES ($1, $2, $3, $4, $5)`,
      [newId(), workspaceId, callId, tokenHash, expiresAt],
      m,
    );
  }

  /**
   * Uses the call's token once, atomically (the row is updated only while unused and unexpired, so two handshakes
   * with the same token never both succeed); answers null when it was used, or why not.
   */
  async consume(
    workspaceId: WorkspaceId,
    callId: string,
    tokenHash: string,
    m?: EntityManager,
  ): Promise<TokenRefusal | null> {
    const [rows] = await this.sql<[unknown[], number]>(
      `UPDATE web_call_tokens SET used_at = now(), updated_at = now()
        WHERE workspace_id = $1 AND call_id = $2 AND token_hash = $3 AND used_at IS NULL AND expires_at > now()
        RETURNING id`,
      [workspaceId, callId, tokenHash],
      m,
    );
    return rows.length === 1 ? null : (await this.check(workspaceId, callId, tokenHash, m)).refusal;
  }

  /** What the token would do now, without using it (`refusal` null: it opens the call), and when it expires. */
  async check(
    workspaceId: WorkspaceId,
    callId: string,
    tokenHash: string,
    m?: EntityManager,
  ): Promise<{ refusal: TokenRefusal | null; expiresAt: Date | null }> {
    const rows = await this.sql<{ used: boolean; expired: boolean; expires_at: Date }[]>(
      `SELECT used_at IS NOT NULL AS used, expires_at <= now() AS expired, expires_at FROM web_call_tokens
        WHERE workspace_id = $1 AND call_id = $2 AND token_hash = $3`,
      [workspaceId, callId, tokenHash],
      m,
    );
    const row = rows[0];
    if (!row) return { refusal: 'invalid', expiresAt: null };
    return { refusal: row.used ? 'used' : row.expired ? 'expired' : null, expiresAt: row.expires_at };
  }
}
