import { Injectable, Logger } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import type { AuthContext } from '@/common/auth/request-context';
import { isUuid } from '@/common/validation/validators';
import { ApiToken, TOKEN_SCOPES, TokenScope } from './api-token.entity';
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
    return token;
  }

  /**
   * The live token of this workspace with this value, or null. Read from PostgreSQL on every request (no
   * per-process cache), so a revocation holds on the very next request on every replica.
   */
  async authenticate(workspaceId: string, value: string): Promise<AuthContext | null> {
    if (!isWellFormedToken(value)) return null;
    const token = await this.tokens.findLive(workspaceId, hashToken(value));
    if (!token) return null;
    if (!token.lastUsedAt || Date.now() - token.lastUsedAt.getTime() > 60_000) {
      this.tokens
        .touch(workspaceId, token.id)
        .catch((err: Error) =>
          this.logger.warn({ err: err.message, tokenId: token.id }, 'could not record token use'),
        );
    }
    return { tokenId: token.id, tokenName: token.name, userId: token.userId, scopes: token.scopes };
  }
}
