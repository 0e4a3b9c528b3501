import { parentFrom, TRACEPARENT } from './telemetry';
import { tracingState } from './tracing-state';

/**
 * A trace carried beyond the process or the moment: the current one as a W3C `traceparent` (stored with an event,
 * put in a job's payload) and continued later where it is read. Nothing with tracing off.
 */

/** The current trace id (32 hex), when tracing is on and a trace is current. */
export function currentTraceId(): string | undefined {
  const s = tracingState();
  if (!s) return undefined;
  const sc = s.api.trace.getSpanContext(s.api.context.active());
  return sc && s.api.trace.isSpanContextValid(sc) ? sc.traceId : undefined;
}

/** The current span as a W3C `traceparent` (to store or send with work done later), or null. */
export function currentTraceparent(): string | null {
  const s = tracingState();
  if (!s) return null;
  const sc = s.api.trace.getSpanContext(s.api.context.active());
  if (!sc || !s.api.trace.isSpanContextValid(sc)) return null;
  return `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** The field of a payload (a Bull job's data, a queued inbound message) that carries the trace of its producer. */
export const TRACE_FIELD = '_trace';

/** `payload` with the current trace in TRACE_FIELD (a copy); the payload itself with tracing off or no trace. */
export function carry<T extends object>(payload: T): T {
  const traceparent = currentTraceparent();
  return traceparent ? { ...payload, [TRACE_FIELD]: traceparent } : payload;
}

/** The `traceparent` a payload carries (see `carry`), if any. */
export function carriedTrace(payload: unknown): string | undefined {
  const value = (payload as Record<string, unknown> | null | undefined)?.[TRACE_FIELD];
  return typeof value === 'string' ? value : undefined;
}

/** The trace id a payload carries, for log lines about it written outside its context. */
export function carriedTraceId(payload: unknown): string | undefined {
  if (!tracingState()) return undefined;
  return TRACEPARENT.exec(carriedTrace(payload) ?? '')?.[1];
}

/** Runs `fn` in the trace a `traceparent` names (no span of its own); as it is when there is none. */
export function resumeTrace<T>(traceparent: string | null | undefined, fn: () => T): T {
  const s = tracingState();
  if (!s || !traceparent) return fn();
  const parent = parentFrom(s, traceparent);
  return parent ? s.api.context.with(parent, fn) : fn();
}
