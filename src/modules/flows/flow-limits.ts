/** At most this many executions run at once per workspace; the others wait queued. */
export const MAX_RUNNING_PER_WORKSPACE = 20;

/**
 * A running execution's lease: claiming or resuming it sets it, and every step record saved renews it. Well past
 * any step's own timeout (`send_webhook` 10 s; retries wait paused, not inside a step), so only an execution that
 * is stuck outlives it while its process is alive.
 */
export const EXECUTION_LEASE_MS = 120_000;
/**
 * A paused execution (a step tried again later, or one handed back after its process died) is owned by its resume
 * job until its due time plus this; past that the job is taken as lost and the execution is handed back again.
 */
export const RESUME_GRACE_MS = 60_000;
/** A step is tried at most this many times counting interruptions; one more interruption fails the execution. */
export const MAX_STEP_ATTEMPTS = 5;
