/**
 * The id of a workspace, the tenant every scoped call and query is filtered on: the workspace's uuid as a plain
 * string. Declarations of workspace ids read this type, so that it can be branded (another id, or any other string,
 * refused where a workspace id is expected) once all of them do.
 *
 * Values come from what already knows the workspace: the tenant middleware (`TenantContext.id`, the `WorkspaceId`
 * parameter decorator), entity columns and row types (`workspaceId`, `workspace_id`), job payloads and the
 * workspace entity itself. `workspaceIdOf` makes one from a plain string and is for the trust boundaries only.
 */
export type WorkspaceId = string;

/**
 * A string taken as a workspace id. Only where the workspace is known from a trusted source that is not typed
 * as one: a workspace created or read by the workspaces module, a signed resource or token that names its
 * workspace, the admin CLI, and tests.
 */
export function workspaceIdOf(raw: string): WorkspaceId {
  return raw as WorkspaceId;
}
