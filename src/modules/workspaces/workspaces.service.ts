import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import type { TenantContext } from '@/common/auth/request-context';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { User, UserRole } from './user.entity';
import { DEFAULT_POLICIES, Workspace, WorkspacePolicies } from './workspace.entity';
import { UsersRepository, WorkspacesRepository } from './workspaces.repository';

const TENANT_CACHE_MS = 30_000;
export const SLUG_RE = /^[a-z0-9](-?[a-z0-9])*$/;

/** Workspaces, their users and policies. Operators reach it through the internal module and the admin CLI. */
@Injectable()
export class WorkspacesService {
  private readonly tenantCache = new Map<string, { value: TenantContext; expires: number }>();

  constructor(
    private readonly workspaces: WorkspacesRepository,
    private readonly users: UsersRepository,
  ) {}

  /** Host label → workspace, cached briefly (a slug never changes owner). Unknown slugs are not cached. */
  async resolveTenant(slug: string): Promise<TenantContext | null> {
    const hit = this.tenantCache.get(slug);
    if (hit && hit.expires > Date.now()) return hit.value;
    const ws = await this.workspaces.findBySlug(slug);
    if (!ws) return null;
    const value: TenantContext = { id: ws.id, slug: ws.slug, name: ws.name, policies: ws.policies };
    this.tenantCache.set(slug, { value, expires: Date.now() + TENANT_CACHE_MS });
    return value;
  }

  async createWorkspace(slug: string, name?: string): Promise<Workspace> {
    if (!SLUG_RE.test(slug) || slug.length < 3 || slug.length > 63)
      throw AppException.invalid('slug', 'slug must be 3 to 63 lowercase letters, digits or single hyphens');
    if (await this.workspaces.findBySlug(slug))
      throw AppException.conflict(`Workspace ${slug} already exists`);
    try {
      return await this.workspaces.create(slug, name?.trim() || slug);
    } catch (err) {
      if ((err as { code?: string }).code === '23505')
        throw AppException.conflict(`Workspace ${slug} already exists`);
      throw err;
    }
  }

  async getBySlug(slug: string): Promise<Workspace> {
    const ws = await this.workspaces.findBySlug(slug);
    if (!ws) throw AppException.notFound('Workspace');
    return ws;
  }

  /** Policies are read fresh (not from the tenant cache) so a change applies on the next request everywhere. */
  async getPolicies(workspaceId: WorkspaceId): Promise<WorkspacePolicies> {
    const ws = await this.workspaces.findById(workspaceId);
    return { ...DEFAULT_POLICIES, ...(ws?.policies ?? {}) };
  }

  async setPolicies(slug: string, policies: Partial<WorkspacePolicies>): Promise<Workspace> {
    const ws = await this.getBySlug(slug);
    ws.policies = { ...DEFAULT_POLICIES, ...ws.policies, ...policies };
    this.tenantCache.delete(slug);
    return this.workspaces.save(ws);
  }

  /** The page origins allowed to open the workspace's web calls, read fresh (a change applies at once). */
  async webCallOrigins(workspaceId: WorkspaceId): Promise<string[]> {
    return (await this.workspaces.findById(workspaceId))?.webCallOrigins ?? [];
  }

  async setWebCallOrigins(workspaceId: WorkspaceId, origins: string[]): Promise<string[]> {
    const ws = await this.workspaces.findById(workspaceId);
    if (!ws) throw AppException.notFound('Workspace');
    ws.webCallOrigins = origins;
    return (await this.workspaces.save(ws)).webCallOrigins;
  }

  async createUser(slug: string, input: { email: string; name?: string; role: UserRole }): Promise<User> {
    const ws = await this.getBySlug(slug);
    if (await this.users.findByEmail(ws.id, input.email))
      throw AppException.conflict(`A user with email ${input.email} already exists in this workspace`);
    const user = this.users.build(ws.id, {
      email: input.email.trim(),
      name: input.name?.trim() || input.email.split('@')[0],
      role: input.role,
    });
    return this.users.save(ws.id, user);
  }

  async listUsers(slug: string): Promise<User[]> {
    const ws = await this.getBySlug(slug);
    return this.users.find(ws.id, { order: { createdAt: 'ASC' } });
  }

  /** A user of the workspace by uuid or email (the CLI accepts either). */
  async findUser(workspaceId: WorkspaceId, ref: string): Promise<User | null> {
    return ref.includes('@')
      ? this.users.findByEmail(workspaceId, ref)
      : this.users.findById(workspaceId, ref);
  }
}
