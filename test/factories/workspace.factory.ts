import { randomBytes } from 'node:crypto';
import type { TokenScope } from '@/modules/workspaces/api-token.entity';
import { TokensService } from '@/modules/workspaces/tokens.service';
import type { UserRole } from '@/modules/workspaces/user.entity';
import { WorkspacesService } from '@/modules/workspaces/workspaces.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { TenantClient, TestApp } from '../setup/test-app';

export interface TestTenant {
  slug: string;
  workspaceId: WorkspaceId;
  host: string;
  token: string;
  tokenId: string;
  userId: string;
  /** Requests to this tenant with its token. */
  http: TenantClient;
}

export function uniqueSlug(prefix = 'ws'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`;
}

/** A workspace, a user and a token, made through the real services. */
export async function createTenant(
  app: TestApp,
  options: { slug?: string; role?: UserRole; scopes?: TokenScope[] } = {},
): Promise<TestTenant> {
  const workspaces = app.get<WorkspacesService>(WorkspacesService);
  const tokens = app.get<TokensService>(TokensService);
  const slug = options.slug ?? uniqueSlug();
  const ws = await workspaces.createWorkspace(slug, `Workspace ${slug}`);
  const user = await workspaces.createUser(slug, {
    email: `dev@${slug}.test`,
    role: options.role ?? 'developer',
  });
  const created = await tokens.create(slug, { name: 'test token', user: user.id, scopes: options.scopes });
  const host = `${slug}.localhost`;
  return {
    slug,
    workspaceId: ws.id,
    host,
    token: created.token,
    tokenId: created.record.id,
    userId: user.id,
    http: app.http(host, created.token),
  };
}

/** Another token of the same workspace, with chosen scopes. */
export async function createToken(app: TestApp, tenant: TestTenant, scopes: TokenScope[]): Promise<string> {
  const created = await app
    .get<TokensService>(TokensService)
    .create(tenant.slug, { name: 'scoped', user: tenant.userId, scopes });
  return created.token;
}
