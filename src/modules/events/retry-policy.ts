import { Injectable } from '@nestjs/common';

export interface RetrySchedule {
  /** Wait after the first failed attempt. */
  baseMs: number;
  /** Each later wait is this many times the one before. */
  factor: number;
  /** No single wait is longer. */
  capMs: number;
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Each wait is randomised by up to this fraction either way. */
  jitter: number;
  /** Longest Retry-After honoured; longer answers are clamped to it. */
  maxRetryAfterMs: number;
}

/** 30 s, 90 s, 4.5 min, 13.5 min, 40 min, 2 h, 6 h, 12 h: 9 attempts over about 21 hours. */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = {
  baseMs: 30_000,
  factor: 3,
  capMs: 12 * 3600_000,
  maxAttempts: 9,
  jitter: 0.2,
  maxRetryAfterMs: 12 * 3600_000,
};

/** When the next attempt runs, or null when none is left. `attempt` is the number of the attempt that failed. */
export function nextDelayMs(
  schedule: RetrySchedule,
  attempt: number,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number | null {
  if (attempt >= schedule.maxAttempts) return null;
  if (retryAfterMs !== null) return Math.min(Math.max(retryAfterMs, 0), schedule.maxRetryAfterMs);
  const plain = Math.min(schedule.baseMs * schedule.factor ** (attempt - 1), schedule.capMs);
  const spread = plain * schedule.jitter * (2 * random() - 1);
  return Math.max(0, Math.round(plain + spread));
}

/** `Retry-After` in seconds or as an HTTP date, in milliseconds from `now`; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return null;
  const trimmed = raw.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * The retry schedule in force, injectable so that a test (or an operator tool) can scale it down without an
 * environment variable; the service reads it at every failure.
 */
@Injectable()
export class RetryPolicy {
  schedule: RetrySchedule = { ...DEFAULT_RETRY_SCHEDULE };

  configure(changes: Partial<RetrySchedule>): void {
    this.schedule = { ...this.schedule, ...changes };
  }

  reset(): void {
    this.schedule = { ...DEFAULT_RETRY_SCHEDULE };
  }

  next(attempt: number, retryAfterMs: number | null): number | null {
    return nextDelayMs(this.schedule, attempt, retryAfterMs);
  }
}
