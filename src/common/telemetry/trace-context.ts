import { newLeftOutTraceparent, parentFrom, TRACEPARENT, traceparentOf } from './telemetry';
import { tracingState, type TracingState } from './tracing-state';

/**
 * A trace carried beyond the process or the moment: the current one as a W3C `traceparent` (stored with an event,
 * put in a job's payload) and continued later where it is read. Nothing with tracing off.
 */

/**
 * The current trace, when tracing is on and a trace is current: its span's context, or the `traceparent` of a trace
 * the sampler left out (its context holds no span). Under a probe (tracing suppressed, no trace at all), a new left-out
 * one, so that the work it carries on (jobs, events) is left out with it rather than starting traces of its own.
 */
function currentTrace(s: TracingState): string | undefined {
  const ctx = s.active();
  const sc = s.api.trace.getSpanContext(ctx);
  if (sc && s.api.trace.isSpanContextValid(sc)) return traceparentOf(sc);
  const leftOut = ctx.getValue(s.leftOut) as string | undefined;
  if (leftOut) return leftOut;
  return s.suppressed(ctx) ? newLeftOutTraceparent(s) : undefined;
}

/** The current trace id (32 hex), when tracing is on and a trace is current. */
export function currentTraceId(): string | undefined {
  const s = tracingState();
  if (!s) return undefined;
  const ctx = s.active();
  const sc = s.api.trace.getSpanContext(ctx);
  if (sc && s.api.trace.isSpanContextValid(sc)) return sc.traceId;
  return TRACEPARENT.exec((ctx.getValue(s.leftOut) as string | undefined) ?? '')?.[1];
}

/** The current span as a W3C `traceparent` (to store or send with work done later), or null. */
export function currentTraceparent(): string | null {
  const s = tracingState();
  return (s && currentTrace(s)) ?? null;
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
  return parent ? s.run(parent, fn) : fn();
}
