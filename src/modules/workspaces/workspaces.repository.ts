import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import { newId } from '@/common/persistence/base.entity';
import { type WorkspaceId, workspaceIdOf } from '@/common/auth/workspace-id';
import { ApiToken } from './api-token.entity';
import { User } from './user.entity';
import { Workspace } from './workspace.entity';

/** Workspaces are the tenants themselves, so this is the one repository that is not workspace-scoped. */
@Injectable()
export class WorkspacesRepository {
  constructor(@InjectRepository(Workspace) private readonly repo: Repository<Workspace>) {}

  findBySlug(slug: string): Promise<Workspace | null> {
    return this.repo.findOne({ where: { slug } });
  }

  findById(id: WorkspaceId): Promise<Workspace | null> {
    return this.repo.findOne({ where: { id } });
  }

  create(slug: string, name: string): Promise<Workspace> {
    // A new workspace's id is made here: the one place one comes from nothing.
    return this.repo.save(this.repo.create({ id: workspaceIdOf(newId()), slug, name }));
  }

  save(workspace: Workspace): Promise<Workspace> {
    return this.repo.save(workspace);
  }
}

@Injectable()
export class UsersRepository extends WorkspaceScopedRepository<User> {
  constructor(@InjectRepository(User) repo: Repository<User>) {
    super(repo);
  }

  findByEmail(workspaceId: WorkspaceId, email: string): Promise<User | null> {
    return this.query(workspaceId, 'u').andWhere('lower(u.email) = lower(:email)', { email }).getOne();
  }
}

export type LiveToken = Pick<ApiToken, 'id' | 'name' | 'userId' | 'scopes' | 'lastUsedAt'>;

@Injectable()
export class ApiTokensRepository extends WorkspaceScopedRepository<ApiToken> {
  constructor(@InjectRepository(ApiToken) repo: Repository<ApiToken>) {
    super(repo);
  }

  /**
   * The live (not revoked) token of this workspace with this hash. It runs on every request, so it is one named
   * prepared statement on the pool, without the query builder.
   */
  async findLive(workspaceId: WorkspaceId, tokenHash: string): Promise<LiveToken | null> {
    const rows = await this.prepared<LiveToken>(
      'auth-live-token',
      `SELECT id, name, user_id AS "userId", scopes, last_used_at AS "lastUsedAt" FROM api_tokens
        WHERE workspace_id = $1 AND token_hash = $2 AND revoked_at IS NULL`,
      [workspaceId, tokenHash],
    );
    return rows[0] ?? null;
  }

  /** Writes last_used_at only when the stored one is older than a minute, so a busy token writes once a minute. */
  async touch(workspaceId: WorkspaceId, id: string): Promise<void> {
    await this.sql(
      `UPDATE api_tokens SET last_used_at = now()
        WHERE workspace_id = $1 AND id = $2 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [workspaceId, id],
    );
  }
}
