import { Injectable, Logger } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import type { AuthContext } from '@/common/auth/request-context';
import { isUuid } from '@/common/validation/validators';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { ApiToken, TOKEN_SCOPES, TokenScope } from './api-token.entity';
import { TokenCache } from './token-cache';
import { generateTokenValue, hashToken, isWellFormedToken } from './token-format';
import { ApiTokensRepository } from './workspaces.repository';
import { WorkspacesService } from './workspaces.service';

export interface CreatedToken {
  token: string;
  record: ApiToken;
}

const CREATOR_ROLES = new Set(['admin', 'developer']);

/** API tokens: creation (value shown once), listing, revocation and authentication of requests. */
@Injectable()
export class TokensService {
  private readonly logger = new Logger(TokensService.name);

  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly tokens: ApiTokensRepository,
    private readonly cache: TokenCache,
  ) {}

  async create(
    slug: string,
    input: { name: string; user: string; scopes?: TokenScope[] },
  ): Promise<CreatedToken> {
    const ws = await this.workspaces.getBySlug(slug);
    if (!input.user.includes('@') && !isUuid(input.user))
      throw AppException.invalid('user_uuid', 'user_uuid must be a UUID', 'INVALID_UUID');
    const user = await this.workspaces.findUser(ws.id, input.user);
    if (!user)
      throw AppException.invalid(
        'user_uuid',
        'user_uuid names no user of this workspace',
        'VALIDATION_ERROR',
      );
    if (!CREATOR_ROLES.has(user.role))
      throw new AppException(
        'FORBIDDEN',
        'Only users with the admin or developer role may create API tokens',
      );
    const scopes = [...new Set(input.scopes?.length ? input.scopes : TOKEN_SCOPES)].sort();
    const value = generateTokenValue();
    const record = this.tokens.build(ws.id, {
      name: input.name.trim(),
      userId: user.id,
      tokenHash: hashToken(value),
      lastFour: value.slice(-4),
      scopes,
      lastUsedAt: null,
      revokedAt: null,
    });
    await this.tokens.save(ws.id, record);
    return { token: value, record };
  }

  async list(slug: string): Promise<ApiToken[]> {
    const ws = await this.workspaces.getBySlug(slug);
    return this.tokens.find(ws.id, { order: { createdAt: 'DESC' } });
  }

  async revoke(slug: string, tokenId: string): Promise<ApiToken> {
    const ws = await this.workspaces.getBySlug(slug);
    const token = await this.tokens.findById(ws.id, tokenId);
    if (!token) throw AppException.notFound('Token');
    if (!token.revokedAt) {
      token.revokedAt = new Date();
      await this.tokens.save(ws.id, token);
    }
    await this.cache.revoked(token.id);
    return token;
  }

  /**
   * The live token of this workspace with this value, or null. Kept in the process for a few seconds after it is
   * read (TokenCache); a revocation drops it in every process as soon as it is committed.
   */
  async authenticate(workspaceId: WorkspaceId, value: string): Promise<AuthContext | null> {
    if (!isWellFormedToken(value)) return null;
    const hash = hashToken(value);
    const kept = this.cache.get(workspaceId, hash);
    if (kept) {
      if (this.stale(kept.lastUsedAt)) {
        kept.lastUsedAt = Date.now();
        this.recordUse(workspaceId, kept.auth.tokenId);
      }
      return kept.auth;
    }
    const mark = this.cache.mark();
    const token = await this.tokens.findLive(workspaceId, hash);
    if (!token) return null;
    let lastUsedAt = token.lastUsedAt?.getTime() ?? null;
    if (this.stale(lastUsedAt)) {
      lastUsedAt = Date.now();
      this.recordUse(workspaceId, token.id);
    }
    const auth = { tokenId: token.id, tokenName: token.name, userId: token.userId, scopes: token.scopes };
    this.cache.keep(workspaceId, hash, auth, lastUsedAt, mark);
    return auth;
  }

  /** `last_used_at` is written at most once a minute per token. */
  private stale(lastUsedAt: number | null): boolean {
    return lastUsedAt === null || Date.now() - lastUsedAt > 60_000;
  }

  private recordUse(workspaceId: WorkspaceId, tokenId: string): void {
    this.tokens
      .touch(workspaceId, tokenId)
      .catch((err: Error) => this.logger.warn({ err: err.message, tokenId }, 'could not record token use'));
  }
}
