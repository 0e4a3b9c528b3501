import { isISO8601 } from 'class-validator';
import { AppException } from '@/common/errors/app.exception';

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
// A date-time must carry its offset, so that it names one instant whatever the server's zone.
const DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** Offset of `timeZone` from UTC at the instant `utcMs`, in ms. */
function zoneOffset(utcMs: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(utcMs));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const asUtc = Date.UTC(
    get('year'),
    get('month') - 1,
    get('day'),
    get('hour'),
    get('minute'),
    get('second'),
  );
  return asUtc - Math.floor(utcMs / 1000) * 1000;
}

/** The instant a calendar day starts in `timeZone` (UTC midnight for `UTC`). */
export function startOfDay(year: number, month: number, day: number, timeZone: string): number {
  const guess = Date.UTC(year, month - 1, day);
  const first = guess - zoneOffset(guess, timeZone);
  // A second pass settles days whose offset differs from the guess's (DST changes around midnight).
  return guess - zoneOffset(first, timeZone);
}

/**
 * An ISO 8601 query value as epoch ms: a date-time with `Z` or an offset, or a bare date meaning the start of
 * that day in `timeZone`. Anything else is 422 INVALID_FORMAT naming the field.
 */
export function parseInstant(field: string, value: unknown, timeZone = 'UTC'): number {
  const message = `${field} must be an ISO 8601 date (2026-11-01) or date-time with a time zone (2026-11-01T08:00:00Z)`;
  if (typeof value !== 'string' || !isISO8601(value, { strict: true, strictSeparator: true }))
    throw AppException.invalid(field, message);
  const date = DATE_RE.exec(value);
  if (date) return startOfDay(Number(date[1]), Number(date[2]), Number(date[3]), timeZone);
  if (!DATE_TIME_RE.test(value)) throw AppException.invalid(field, message);
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw AppException.invalid(field, message);
  return ms;
}

export interface TimeRange {
  from: number | null;
  to: number | null;
}

/** `[from, to)`; `to` not after `from` is 422 VALIDATION_ERROR on `to` (a rule spanning two fields). */
export function parseRange(from: unknown, to: unknown, timeZone = 'UTC'): TimeRange {
  const range: TimeRange = {
    from: from === undefined ? null : parseInstant('from', from, timeZone),
    to: to === undefined ? null : parseInstant('to', to, timeZone),
  };
  if (range.from !== null && range.to !== null && range.to <= range.from)
    throw AppException.invalid('to', 'to must be later than from', 'VALIDATION_ERROR');
  return range;
}
