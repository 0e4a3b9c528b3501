/**
 * What authentication needs from the workspaces module, as ports it implements (so common code never imports a
 * domain module): the tenant of a host label and the token of a request.
 */
import type { AuthContext, TenantContext } from './request-context';
import type { WorkspaceId } from './workspace-id';

export const EXPORT_POLICIES = ['raw', 'masked', 'disabled'] as const;
export type ExportPolicy = (typeof EXPORT_POLICIES)[number];

export interface WorkspacePolicies {
  ANALYTICS_MESSAGES_EXPORT: ExportPolicy;
}

export const TOKEN_SCOPES = ['read', 'write'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** Host label → workspace (null when unknown). */
export abstract class TenantResolver {
  abstract resolveTenant(slug: string): Promise<TenantContext | null>;
}

/** A workspace's bearer token → who calls with which scopes (null when unknown, revoked or malformed). */
export abstract class TokenAuthenticator {
  abstract authenticate(workspaceId: WorkspaceId, value: string): Promise<AuthContext | null>;
}
