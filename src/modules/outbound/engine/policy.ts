import { CallingWindow, Campaign, DAYS, Pool, RetryPolicy, Rule } from '../outbound.entities';

export const DEFAULT_WINDOW: CallingWindow = {
  days: DAYS.slice(0, 5),
  start_time: '09:00',
  end_time: '18:00',
  use_contact_timezone: true,
};

export const DEFAULT_RETRY: RetryPolicy = {
  max_attempts: 3,
  interval_minutes: 120,
  strategy: 'fixed',
  on: ['busy', 'no-answer'],
  max_per_day: null,
};

export interface EffectivePolicy {
  window: CallingWindow;
  retry: RetryPolicy;
}

/**
 * The policy a campaign's tasks follow, key by key: the campaign's `window`/`retry`, then its rule, then the pool
 * the task came from (`max_retries + 1` attempts), then the defaults. WhatsApp campaigns make one attempt.
 */
export function effectivePolicy(
  campaign: Pick<Campaign, 'window' | 'retry' | 'channel'>,
  rule: Rule | null,
  pool: Pick<Pool, 'maxRetries'> | null,
): EffectivePolicy {
  const w = campaign.window ?? {};
  const r = campaign.retry ?? {};
  const window: CallingWindow = {
    days: w.days ?? rule?.days ?? DEFAULT_WINDOW.days,
    start_time: w.start_time ?? rule?.startTime ?? DEFAULT_WINDOW.start_time,
    end_time: w.end_time ?? rule?.endTime ?? DEFAULT_WINDOW.end_time,
    use_contact_timezone: w.use_contact_timezone ?? true,
  };
  const retry: RetryPolicy = {
    max_attempts:
      r.max_attempts ?? rule?.maxTotalCalls ?? (pool ? pool.maxRetries + 1 : DEFAULT_RETRY.max_attempts),
    interval_minutes: r.interval_minutes ?? rule?.retryIntervalMinutes ?? DEFAULT_RETRY.interval_minutes,
    strategy: r.strategy ?? rule?.retryStrategy ?? DEFAULT_RETRY.strategy,
    on: r.on ?? rule?.retryOn ?? DEFAULT_RETRY.on,
    max_per_day: rule?.maxCallsPerDay ?? null,
  };
  if (campaign.channel === 'whatsapp') {
    retry.max_attempts = 1;
    retry.max_per_day = 1;
  }
  return { window, retry };
}

/** A merged window that ends at or before it starts: which of the campaign's window keys meets the other's. */
export interface WindowClash {
  /** The campaign's own key (the other time comes from the rule or the defaults). */
  field: 'start_time' | 'end_time';
  start: string;
  end: string;
}

/**
 * Whether the campaign's window keys, merged with the rule's and the defaults, end the window at or before it
 * starts (e.g. the campaign's start_time 19:00 with the rule's end_time 18:00). A window that sets both times is
 * checked on its own, and a rule's times are checked with the rule.
 */
export function windowClash(window: Partial<CallingWindow> | null, rule: Rule | null): WindowClash | null {
  const merged = effectivePolicy({ window, retry: null, channel: 'call' }, rule, null).window;
  if (merged.end_time > merged.start_time) return null;
  return {
    field: window?.end_time ? 'end_time' : 'start_time',
    start: merged.start_time,
    end: merged.end_time,
  };
}
