/**
 * The id of a workspace, the tenant every scoped call and query is filtered on. At run time it is the workspace's
 * uuid as a plain string; in the types it is branded, so another id (a conversation's, a call's, an agent's) or any
 * other string does not compile where a workspace id is expected.
 *
 * Values come from what already knows the workspace: the tenant middleware (`TenantContext.id`, the `WorkspaceId`
 * parameter decorator), entity columns and row types (`workspaceId`, `workspace_id`), job payloads and the
 * workspace entity itself. `workspaceIdOf` makes one from a plain string and is for the trust boundaries only.
 */
export type WorkspaceId = string & { readonly __brand: 'WorkspaceId' };

/**
 * A string taken as a workspace id. Only where the workspace is known from a trusted source that is not typed
 * as one: a workspace created or read by the workspaces module, a signed resource or token that names its
 * workspace, the admin CLI, and tests.
 */
export function workspaceIdOf(raw: string): WorkspaceId {
  return raw as WorkspaceId;
}
