import { AppException } from '@/common/errors/app.exception';
import { parseInstant, parseRange, startOfDay } from './time-range';

const fieldError = (fn: () => unknown): { code: string; field?: string } => {
  try {
    fn();
  } catch (err) {
    const e = err as AppException;
    return { code: e.code, field: e.options.field };
  }
  throw new Error('expected an error');
};

describe('time range', () => {
  it('reads date-times with a zone and bare dates', () => {
    expect(parseInstant('from', '2026-11-01T08:30:00Z')).toBe(Date.UTC(2026, 10, 1, 8, 30));
    expect(parseInstant('from', '2026-11-01T08:30:00.250+02:00')).toBe(Date.UTC(2026, 10, 1, 6, 30, 0, 250));
    expect(parseInstant('from', '2026-11-01')).toBe(Date.UTC(2026, 10, 1));
    expect(parseInstant('from', '2026-11-01', 'Europe/Paris')).toBe(Date.UTC(2026, 9, 31, 23));
  });

  it('finds the start of a day across daylight-saving changes', () => {
    expect(startOfDay(2026, 3, 29, 'Europe/Paris')).toBe(Date.UTC(2026, 2, 28, 23));
    expect(startOfDay(2026, 3, 30, 'Europe/Paris')).toBe(Date.UTC(2026, 2, 29, 22));
    expect(startOfDay(2026, 11, 2, 'America/New_York')).toBe(Date.UTC(2026, 10, 2, 5));
    expect(startOfDay(2026, 11, 2, 'Asia/Kolkata')).toBe(Date.UTC(2026, 10, 1, 18, 30));
  });

  it('refuses other forms with INVALID_FORMAT naming the field', () => {
    for (const bad of ['yesterday', '2026-13-01', '2026-02-30', '2026-11-01T08:00:00', '1700000000', '', 5])
      expect(fieldError(() => parseInstant('to', bad))).toEqual({ code: 'INVALID_FORMAT', field: 'to' });
  });

  it('is half-open: to must be later than from', () => {
    expect(parseRange('2026-11-01', '2026-11-02')).toEqual({
      from: Date.UTC(2026, 10, 1),
      to: Date.UTC(2026, 10, 2),
    });
    expect(parseRange(undefined, undefined)).toEqual({ from: null, to: null });
    expect(fieldError(() => parseRange('2026-11-02', '2026-11-02'))).toEqual({
      code: 'VALIDATION_ERROR',
      field: 'to',
    });
  });
});
