import { DEFAULT_RETRY_SCHEDULE, nextDelayMs, parseRetryAfter } from './retry-policy';

describe('webhook retry schedule', () => {
  const exact = () => 0.5; // no jitter

  it('backs off exponentially over about a day, with at least 8 attempts', () => {
    const waits: number[] = [];
    for (let attempt = 1; ; attempt++) {
      const wait = nextDelayMs(DEFAULT_RETRY_SCHEDULE, attempt, null, exact);
      if (wait === null) break;
      waits.push(wait);
    }
    expect(waits.length + 1).toBeGreaterThanOrEqual(8);
    expect(waits.slice(0, 3)).toEqual([30_000, 90_000, 270_000]);
    for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThan(waits[i - 1]);
    const total = waits.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(18 * 3600_000);
    expect(total).toBeLessThan(30 * 3600_000);
  });

  it('spreads each wait by the jitter fraction', () => {
    const low = nextDelayMs(DEFAULT_RETRY_SCHEDULE, 2, null, () => 0)!;
    const high = nextDelayMs(DEFAULT_RETRY_SCHEDULE, 2, null, () => 0.999999)!;
    expect(low).toBe(72_000);
    expect(high).toBeGreaterThan(107_000);
    expect(high).toBeLessThanOrEqual(108_000);
  });

  it('honours Retry-After, clamped to the longest wait, and stops after the last attempt', () => {
    expect(nextDelayMs(DEFAULT_RETRY_SCHEDULE, 1, 5_000)).toBe(5_000);
    expect(nextDelayMs(DEFAULT_RETRY_SCHEDULE, 1, 10 ** 12)).toBe(DEFAULT_RETRY_SCHEDULE.maxRetryAfterMs);
    expect(nextDelayMs(DEFAULT_RETRY_SCHEDULE, DEFAULT_RETRY_SCHEDULE.maxAttempts, 5_000)).toBeNull();
  });

  it('scales down for a fast clock', () => {
    const fast = { ...DEFAULT_RETRY_SCHEDULE, baseMs: 100, factor: 2, maxAttempts: 3, jitter: 0 };
    expect([1, 2, 3].map((a) => nextDelayMs(fast, a, null))).toEqual([100, 200, null]);
  });

  it('reads Retry-After in seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-22T00:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter(undefined, now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
  });
});
