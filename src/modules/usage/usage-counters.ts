import type { UsageReport } from '@/providers/usage-report';

/** A conversation's usage (or a sum of several), in the units it is stored in. */
export interface UsageCounters {
  promptTokens: number;
  completionTokens: number;
  sttMs: number;
  ttsCharacters: number;
  toolCalls: number;
  /** The call's own leg: whole seconds from answered to ended, as the call's `duration`. */
  callSeconds: number;
  /** A forward's leg to a number, as the provider measured it. */
  forwardedSeconds: number;
}

export const NO_USAGE: UsageCounters = {
  promptTokens: 0,
  completionTokens: 0,
  sttMs: 0,
  ttsCharacters: 0,
  toolCalls: 0,
  callSeconds: 0,
  forwardedSeconds: 0,
};

/** The counters a report adds to (a call's own leg is read from the call, never reported). */
export const REPORTED = [
  'promptTokens',
  'completionTokens',
  'sttMs',
  'ttsCharacters',
  'toolCalls',
  'forwardedSeconds',
] as const satisfies readonly (keyof UsageReport & keyof UsageCounters)[];

export type ReportedCounters = Record<(typeof REPORTED)[number], number>;

/** A report as whole, non-negative numbers (anything else counts as 0). */
export function reported(report: UsageReport): ReportedCounters {
  const out = {} as ReportedCounters;
  for (const key of REPORTED) {
    const n = report[key];
    out[key] = typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.round(n) : 0;
  }
  return out;
}

/** A database row of counters (bigint and numeric arrive as strings) as numbers. */
export function countersOf(row: Partial<Record<keyof UsageCounters, string | number | null>>): UsageCounters {
  const out = { ...NO_USAGE };
  for (const key of Object.keys(NO_USAGE) as (keyof UsageCounters)[]) out[key] = Number(row[key] ?? 0) || 0;
  return out;
}
