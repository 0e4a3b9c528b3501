import { CallingWindow } from '../outbound.entities';
import { localDay, nextInWindow, nextLocalDay, retryDelayMs, zonedInstant } from './calling-window';
import { effectivePolicy } from './policy';

const weekdays: CallingWindow = {
  days: ['mon', 'tue', 'wed', 'thu', 'fri'],
  start_time: '09:00',
  end_time: '18:00',
  use_contact_timezone: true,
};
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

describe('calling windows', () => {
  it('answers now inside the window, the next opening otherwise, skipping closed days', () => {
    // Wednesday 2026-12-02.
    expect(iso(nextInWindow(at('2026-12-02T10:00:00Z'), weekdays, 'UTC'))).toBe('2026-12-02T10:00:00.000Z');
    expect(iso(nextInWindow(at('2026-12-02T07:00:00Z'), weekdays, 'UTC'))).toBe('2026-12-02T09:00:00.000Z');
    expect(iso(nextInWindow(at('2026-12-02T18:00:00Z'), weekdays, 'UTC'))).toBe('2026-12-03T09:00:00.000Z');
    // Friday evening: Monday morning.
    expect(iso(nextInWindow(at('2026-12-04T19:00:00Z'), weekdays, 'UTC'))).toBe('2026-12-07T09:00:00.000Z');
    expect(nextInWindow(0, { ...weekdays, days: [] }, 'UTC')).toBeNull();
  });

  it('reads the window in the zone, DST included', () => {
    // Paris: 09:00 is 08:00Z in winter and 07:00Z in summer (clocks go forward on 2026-03-29).
    expect(iso(nextInWindow(at('2026-03-27T20:00:00Z'), weekdays, 'Europe/Paris'))).toBe(
      '2026-03-30T07:00:00.000Z',
    );
    expect(iso(nextInWindow(at('2026-03-26T20:00:00Z'), weekdays, 'Europe/Paris'))).toBe(
      '2026-03-27T08:00:00.000Z',
    );
    // New York leaves daylight time on 2026-11-01.
    const daily = { ...weekdays, days: ['sat', 'sun'] as CallingWindow['days'], end_time: '10:00' };
    expect(iso(nextInWindow(at('2026-10-31T14:30:00Z'), daily, 'America/New_York'))).toBe(
      '2026-11-01T14:00:00.000Z',
    );
    // A wall time skipped by the change resolves after the gap.
    expect(iso(zonedInstant(2026, 3, 29, 2 * 60 + 30, 'Europe/Paris'))).toBe('2026-03-29T01:30:00.000Z');
  });

  it('counts local days in the zone', () => {
    expect(localDay(at('2026-12-02T23:30:00Z'), 'Europe/Paris')).toBe('2026-12-03');
    expect(localDay(at('2026-12-02T23:30:00Z'), 'UTC')).toBe('2026-12-02');
    expect(iso(nextLocalDay(at('2026-12-02T10:00:00Z'), 'Europe/Paris'))).toBe('2026-12-02T23:00:00.000Z');
  });

  it('waits a fixed interval or doubles it, capped at 7 days', () => {
    expect(retryDelayMs({ interval_minutes: 30, strategy: 'fixed' }, 3)).toBe(30 * 60_000);
    expect(retryDelayMs({ interval_minutes: 30, strategy: 'exponential' }, 1)).toBe(30 * 60_000);
    expect(retryDelayMs({ interval_minutes: 30, strategy: 'exponential' }, 3)).toBe(120 * 60_000);
    expect(retryDelayMs({ interval_minutes: 10080, strategy: 'exponential' }, 5)).toBe(7 * 24 * 3600_000);
  });

  it('merges the policy key by key: campaign, rule, pool, defaults; WhatsApp makes one attempt', () => {
    const rule = {
      days: ['mon'],
      startTime: '10:00',
      endTime: '12:00',
      maxTotalCalls: 5,
      retryIntervalMinutes: 15,
    };
    const merged = effectivePolicy(
      { channel: 'call', window: { start_time: '08:00' }, retry: { on: ['failed'] } },
      rule as never,
      { maxRetries: 1 },
    );
    expect(merged.window).toEqual({
      days: ['mon'],
      start_time: '08:00',
      end_time: '12:00',
      use_contact_timezone: true,
    });
    expect(merged.retry).toMatchObject({
      max_attempts: 5,
      interval_minutes: 15,
      strategy: 'fixed',
      on: ['failed'],
    });
    expect(
      effectivePolicy({ channel: 'call', window: null, retry: null }, null, { maxRetries: 1 }).retry
        .max_attempts,
    ).toBe(2);
    expect(
      effectivePolicy({ channel: 'whatsapp', window: null, retry: null }, null, null).retry.max_attempts,
    ).toBe(1);
  });
});
