/**
 * The workspace's agent configuration version as a sub-select correlated with a row of that workspace (`alias` has
 * a `workspace_id` column). Triggers (migration 1764000000000-AgentConfigVersions) move it in the transaction of
 * every change to what an agent's view and its turn settings read: the agent and its collections, its numbers and
 * pages, the evaluation and memorize settings (the workspace defaults included). Text (a bigint), or null while
 * nothing was ever configured. A process that keeps an agent's turn context compares it to the version the context
 * was read at; it is placed in statements a turn sends anyway (the call row, the agent view), so checking costs no
 * round trip.
 */
export const agentConfigVersionSql = (alias: string): string =>
  `(SELECT v.version::text FROM agent_config_versions v WHERE v.workspace_id = ${alias}.workspace_id)`;
