import { CallingWindow, Day, DAYS, RetryPolicy } from '../outbound.entities';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      weekday: 'short',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: Day;
}

/** The wall-clock reading of an instant in a zone. */
export function localParts(ms: number, timeZone: string): LocalParts {
  const parts: Record<string, string> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(ms))) parts[p.type] = p.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: parts.weekday.toLowerCase().slice(0, 3) as Day,
  };
}

/** The zone's offset from UTC at an instant, in ms (DST included). */
function offsetAt(ms: number, timeZone: string): number {
  const p = localParts(ms, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/**
 * The instant a local wall time names in a zone. A time skipped by a DST change resolves to the instant after the
 * gap; a time met twice resolves to its first occurrence.
 */
export function zonedInstant(
  year: number,
  month: number,
  day: number,
  minutes: number,
  timeZone: string,
): number {
  const guess = Date.UTC(year, month - 1, day, Math.floor(minutes / 60), minutes % 60);
  const first = guess - offsetAt(guess, timeZone);
  const second = guess - offsetAt(first, timeZone);
  const reads = (ms: number) => {
    const p = localParts(ms, timeZone);
    return p.day === day && p.hour * 60 + p.minute === minutes;
  };
  const valid = [first, second].filter(reads);
  return valid.length ? Math.min(...valid) : Math.max(first, second);
}

/** `YYYY-MM-DD` of an instant in a zone: the contact's local day, which the daily cap counts in. */
export function localDay(ms: number, timeZone: string): string {
  const p = localParts(ms, timeZone);
  return `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** The first instant at or after `fromMs` inside the window, or null when the window never opens. */
export function nextInWindow(fromMs: number, window: CallingWindow, timeZone: string): number | null {
  if (!window.days.length) return null;
  const start = minutesOf(window.start_time);
  const end = minutesOf(window.end_time);
  const p = localParts(fromMs, timeZone);
  // Walk calendar days from the local date of `fromMs`; 8 days cover every weekly pattern.
  for (let i = 0; i < 9; i++) {
    const date = new Date(Date.UTC(p.year, p.month - 1, p.day + i));
    const weekday = DAYS[(date.getUTCDay() + 6) % 7];
    if (!window.days.includes(weekday)) continue;
    const [y, m, d] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
    const opens = zonedInstant(y, m, d, start, timeZone);
    const closes = zonedInstant(y, m, d, end, timeZone);
    if (fromMs < opens) return opens;
    if (fromMs < closes) return fromMs;
  }
  return null;
}

/** The start of the local day after the one `ms` falls in. */
export function nextLocalDay(ms: number, timeZone: string): number {
  const p = localParts(ms, timeZone);
  const date = new Date(Date.UTC(p.year, p.month - 1, p.day + 1));
  return zonedInstant(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), 0, timeZone);
}

const WEEK_MS = 7 * 24 * 3600 * 1000;

/** The wait before the next attempt after `attemptsDone` attempts: fixed, or doubling (capped at 7 days). */
export function retryDelayMs(
  retry: Pick<RetryPolicy, 'interval_minutes' | 'strategy'>,
  attemptsDone: number,
): number {
  const base = retry.interval_minutes * 60_000;
  if (retry.strategy !== 'exponential') return base;
  return Math.min(base * 2 ** Math.max(0, attemptsDone - 1), WEEK_MS);
}

/** Whether a string names an IANA zone this runtime knows. */
export function isTimeZone(value: string): boolean {
  try {
    formatter(value);
    return true;
  } catch {
    return false;
  }
}
