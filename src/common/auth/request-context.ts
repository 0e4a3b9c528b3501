import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { TokenScope, WorkspacePolicies } from './tenancy';
import type { WorkspaceId as WorkspaceIdType } from './workspace-id';

/** The workspace id (`./workspace-id`), under the name of the decorator that reads it from the request. */
export type WorkspaceId = WorkspaceIdType;

export interface TenantContext {
  id: WorkspaceId;
  slug: string;
  name: string;
  policies: WorkspacePolicies;
}

export interface AuthContext {
  tokenId: string;
  tokenName: string;
  userId: string;
  scopes: TokenScope[];
}

export type TenantRequest = Request & { id?: string; workspace?: TenantContext; auth?: AuthContext };

/** The workspace of the request (set by the tenant middleware). */
export const CurrentWorkspace = createParamDecorator((_: unknown, ctx: ExecutionContext): TenantContext => {
  const req = ctx.switchToHttp().getRequest<TenantRequest>();
  if (!req.workspace) throw new Error('CurrentWorkspace used on a route without a tenant');
  return req.workspace;
});

/** The id of the workspace of the request: the first argument of every service call. */
export const WorkspaceId = createParamDecorator((_: unknown, ctx: ExecutionContext): WorkspaceId => {
  const req = ctx.switchToHttp().getRequest<TenantRequest>();
  if (!req.workspace) throw new Error('WorkspaceId used on a route without a tenant');
  return req.workspace.id;
});

/** The token that authenticated the request. */
export const CurrentAuth = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthContext => {
  const req = ctx.switchToHttp().getRequest<TenantRequest>();
  if (!req.auth) throw new Error('CurrentAuth used on a route without a token');
  return req.auth;
});
