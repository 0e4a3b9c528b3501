import type { CallStatus } from '@/providers/telephony/telephony.port';

export const LIVE_STATUSES: readonly CallStatus[] = ['queued', 'ringing', 'in-progress'];
export const isLive = (s: CallStatus): boolean => LIVE_STATUSES.includes(s);
export const isEnded = (s: CallStatus): boolean => !isLive(s);

/** The moves of the states table; anything else is refused (a command) or only logged (a provider event). */
const MOVES: Record<CallStatus, readonly CallStatus[]> = {
  queued: ['ringing', 'failed', 'canceled'],
  ringing: ['in-progress', 'busy', 'no-answer', 'failed', 'canceled'],
  'in-progress': ['completed'],
  completed: [],
  busy: [],
  'no-answer': [],
  failed: [],
  canceled: [],
};

export const canMove = (from: CallStatus, to: CallStatus): boolean => MOVES[from].includes(to);

/** Provider events may skip states that were lost (queued → in-progress) but never move back. */
export function providerCanMove(from: CallStatus, to: CallStatus): boolean {
  const seen = new Set<CallStatus>();
  const walk = (s: CallStatus): boolean =>
    MOVES[s].some((n) => n === to || (!seen.has(n) && (seen.add(n), walk(n))));
  return walk(from);
}

export type EndReason =
  | 'customer_hangup'
  | 'agent_hangup'
  | 'api_hangup'
  | 'max_duration'
  | 'silence_timeout'
  | 'forward_completed'
  | 'busy'
  | 'no_answer'
  | 'provider_error'
  | 'canceled'
  | 'concurrency_limit'
  | 'agent_unavailable'
  | 'voicemail'
  | 'fax';

/** The end reason of a provider's ended status the service did not ask for. */
export function providerEndReason(to: CallStatus): EndReason | null {
  switch (to) {
    case 'completed':
      return 'customer_hangup';
    case 'busy':
      return 'busy';
    case 'no-answer':
      return 'no_answer';
    case 'failed':
      return 'provider_error';
    case 'canceled':
      return 'canceled';
    default:
      return null;
  }
}
