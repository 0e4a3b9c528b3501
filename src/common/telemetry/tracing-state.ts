import type * as OTel from '@opentelemetry/api';

/**
 * Whether tracing is on, and what the helpers need when it is. start.ts switches it on once the SDK is registered,
 * and off again after its shutdown; with tracing off (OTEL_EXPORTER_OTLP_ENDPOINT unset) nothing of OpenTelemetry is
 * loaded and every helper runs its function as it is.
 */

/** Call ids to trace ids: set by start.ts (`call-trace.ts`). */
export interface CallTraces {
  /** The call's trace id and the span id of its `call` span. */
  ids(callId: string): { traceId: string; spanId: string };
  /** Whether the call's trace is sampled (the configured sampler, asked as for a new trace). */
  sampled(traceId: string): boolean;
  /** Starts the `call` span with the call's ids. */
  startCallSpan(callId: string, start: () => OTel.Span): OTel.Span;
}

/** Random trace and span ids: the SDK's generator (`IdGenerator` of @opentelemetry/sdk-trace). */
export interface Ids {
  generateTraceId(): string;
  generateSpanId(): string;
}

export interface TracingState {
  api: typeof OTel;
  /**
   * The current context: the context manager's own answer, read straight from its store when it is the service's
   * (`api.context.active()` looks the manager up in the global registry at every call).
   */
  active(): OTel.Context;
  /** Runs `fn` in `ctx`: the context manager's own `with`, straight, when it is the service's (as `active`). */
  run<T>(ctx: OTel.Context, fn: () => T): T;
  /** The SDK's id generator: ids for a trace left out before anything of it was made. */
  ids: Ids;
  tracer: OTel.Tracer;
  capture: boolean;
  calls: CallTraces;
  keys: Map<string, symbol>;
  /** Each call's trace context, once made (telemetry.ts's `callContext`). */
  callContexts: Map<string, { sampled: boolean; ctx: OTel.Context }>;
  /** The context key holding the name of the innermost span of ours. */
  own: symbol;
  /** The sampler follows the parent's decision: a span under a trace left out is left out too. */
  parentBased: boolean;
  /**
   * The context key holding the `traceparent` of a trace the sampler left out, in a context that holds no span: the
   * PostgreSQL, Redis and HTTP instrumentations then skip their work (they make spans only under a span), and what
   * the work carries on (a job, an event) stays out of the trace too.
   */
  leftOut: symbol;
  /** Whether a context is one where the SDK makes no span (a probe: /health, /metrics). */
  suppressed(ctx: OTel.Context): boolean;
}

/** Calls whose ids, sampling decision and trace context are kept: well over the live calls of one process. */
const CALLS_KEPT = 4096;

/** Keeps `value` for a call's `key` in `map`, letting the oldest entry go once CALLS_KEPT are kept. */
export function keepForCall<V>(map: Map<string, V>, key: string, value: V): V {
  if (!map.has(key) && map.size >= CALLS_KEPT) map.delete(map.keys().next().value as string);
  map.set(key, value);
  return value;
}

let state: TracingState | null = null;

/** Turns the helpers on (start.ts, once the SDK is registered). */
export function activateTracing(options: {
  api: typeof OTel;
  ids: Ids;
  calls: CallTraces;
  capture: boolean;
  parentBased: boolean;
  suppressed: (ctx: OTel.Context) => boolean;
  active?: () => OTel.Context;
  run?: <T>(ctx: OTel.Context, fn: () => T) => T;
}): void {
  const { api } = options;
  state = {
    ...options,
    active: options.active ?? (() => api.context.active()),
    run: options.run ?? ((ctx, fn) => api.context.with(ctx, fn)),
    tracer: api.trace.getTracer('agent-platform'),
    keys: new Map(),
    callContexts: new Map(),
    own: api.createContextKey('agent-platform.own-span'),
    leftOut: api.createContextKey('agent-platform.left-out-trace'),
  };
}

/** Turns them off again (after the SDK's shutdown). */
export function deactivateTracing(): void {
  state = null;
}

/** What the helpers use: null with tracing off. */
export function tracingState(): TracingState | null {
  return state;
}
