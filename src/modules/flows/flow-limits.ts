/** At most this many executions run at once per workspace; the others wait queued. */
export const MAX_RUNNING_PER_WORKSPACE = 20;
