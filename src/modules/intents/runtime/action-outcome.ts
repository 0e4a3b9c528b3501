import type { ActionOutcome, CallStatus } from '@/modules/runtime/tools/intent-actions.port';

export function outcome(
  status: CallStatus,
  result: unknown,
  request: Record<string, unknown>,
): ActionOutcome {
  return { status, result, response: null, handedTo: null, error: null, request };
}

/** A failed call: the model is told `{error: "action_failed", message}`. */
export function failed(error: string, request: Record<string, unknown>): ActionOutcome {
  return { ...outcome('failed', { error: 'action_failed', message: error }, request), error };
}
