import type * as OTel from '@opentelemetry/api';
import { keepForCall, tracingState, type TracingState } from './tracing-state';

/**
 * The span helpers every module uses. With tracing off (OTEL_EXPORTER_OTLP_ENDPOINT unset) nothing of OpenTelemetry
 * is loaded: each helper runs its function as it is and `Traced` leaves methods untouched. With it on, `start.ts`
 * activates them (tracing-state.ts) before the application's modules load. A trace carried beyond the process is
 * trace-context.ts's; a call's trace, call-spans.ts's.
 */

export type AttributeValue = string | number | boolean;
export type SpanAttributes = Record<string, AttributeValue | null | undefined>;
/** A span's attributes, or a function that works them out: called only when the span is made. */
export type SpanAttributesOf = SpanAttributes | (() => SpanAttributes);

const attributesOf = (attributes: SpanAttributesOf): SpanAttributes =>
  typeof attributes === 'function' ? attributes() : attributes;

/** The span a traced function runs in (a no-op one with tracing off). */
export interface SpanHandle {
  setAttribute(key: string, value: AttributeValue | null | undefined): void;
  setAttributes(attributes: SpanAttributes): void;
  /** Text of a customer or an agent (a message, a transcript, a reply): kept only with OTEL_CAPTURE_CONTENT=true. */
  setContent(key: string, text: string | null | undefined): void;
  /** Marks the span failed with the error's class and message. */
  fail(err: unknown): void;
  /** Ends the span (only for spans from `startSpan`); `at` in epoch milliseconds. */
  end(at?: number): void;
}

export interface SpanOptions {
  /** The call the span belongs to: its parent is the call's `call` span, and the current span becomes a link. */
  call?: string | null;
  /** A carried W3C `traceparent` to continue (when valid), instead of the current context. */
  parent?: string | null;
  /** Starts a new trace. */
  root?: boolean;
  /** When a span of this name (of ours) is already current, the function runs in that one instead of a child. */
  reuse?: boolean;
  kind?: 'internal' | 'server' | 'client' | 'producer' | 'consumer';
  /** When the span started, in epoch milliseconds (default now). */
  startTime?: number;
}

/** Whether tracing is on (the helpers' spans are real). */
export const tracingEnabled = (): boolean => tracingState() !== null;

const NOOP: SpanHandle = Object.freeze({
  setAttribute: () => undefined,
  setAttributes: () => undefined,
  setContent: () => undefined,
  fail: () => undefined,
  end: () => undefined,
});

const MAX_CONTENT = 4096;

/** The attributes that have a value. */
export function clean(attributes: SpanAttributes): OTel.Attributes {
  const out: OTel.Attributes = {};
  for (const [k, v] of Object.entries(attributes)) if (v !== undefined && v !== null) out[k] = v;
  return out;
}

function handleOf(s: TracingState, span: OTel.Span): SpanHandle {
  return {
    setAttribute: (key, value) => {
      if (value !== undefined && value !== null) span.setAttribute(key, value);
    },
    setAttributes: (attributes) => span.setAttributes(clean(attributes)),
    setContent: (key, text) => {
      if (s.capture && typeof text === 'string') span.setAttribute(key, text.slice(0, MAX_CONTENT));
    },
    fail: (err) => {
      const e = err as { name?: unknown; message?: unknown } | null;
      const type = typeof e?.name === 'string' ? e.name : 'Error';
      span.setAttribute('error.type', type);
      span.setStatus({
        code: s.api.SpanStatusCode.ERROR,
        message: typeof e?.message === 'string' ? e.message.slice(0, 300) : type,
      });
    },
    end: (at) => span.end(at),
  };
}

function keyOf(s: TracingState, name: string): symbol {
  let key = s.keys.get(name);
  if (!key) s.keys.set(name, (key = s.api.createContextKey(`agent-platform.span.${name}`)));
  return key;
}

/** A W3C `traceparent`: trace id, parent span id, flags. */
export const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A W3C `traceparent` of a span context. */
export const traceparentOf = (sc: OTel.SpanContext): string =>
  `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, '0')}`;

/**
 * A context in a trace the sampler left out: no span in it (so the instrumentations skip their work), the trace's
 * `traceparent` kept for what is carried on from it.
 */
function leftOutContext(s: TracingState, ctx: OTel.Context, traceparent: string): OTel.Context {
  const spanless = s.api.trace.getSpan(ctx) ? s.api.trace.deleteSpan(ctx) : ctx;
  return spanless.setValue(s.leftOut, traceparent);
}

/** A new trace's `traceparent`, not sampled (the SDK's ids): one left out before anything of it was made. */
export function newLeftOutTraceparent(s: TracingState): string {
  return `00-${s.ids.generateTraceId()}-${s.ids.generateSpanId()}-00`;
}

/**
 * The context of a new trace that the sampler's draw left out before anything of it was made (a request that would
 * have started it): a fresh `traceparent`, not sampled, and no span.
 */
export function newLeftOutTrace(s: TracingState): OTel.Context {
  return leftOutContext(s, s.api.ROOT_CONTEXT, newLeftOutTraceparent(s));
}

/**
 * A remote parent from a carried `traceparent`, or undefined when it is not one. One the sampler left out, under a
 * parent-based sampler, is a context without a span (see `leftOutContext`).
 */
export function parentFrom(s: TracingState, traceparent: string): OTel.Context | undefined {
  const m = TRACEPARENT.exec(traceparent);
  if (!m) return undefined;
  const spanContext = { traceId: m[1], spanId: m[2], traceFlags: parseInt(m[3], 16), isRemote: true };
  if (!s.api.trace.isSpanContextValid(spanContext)) return undefined;
  if (s.parentBased && (spanContext.traceFlags & s.api.TraceFlags.SAMPLED) === 0)
    return leftOutContext(s, s.api.ROOT_CONTEXT, traceparent);
  return s.api.trace.setSpanContext(s.api.ROOT_CONTEXT, spanContext);
}

/**
 * For a request on a call that starts no trace of its own (its path names the call, it carries no `traceparent`):
 * nothing when the call's trace is kept (the request is traced), else the context of the call's trace, left out. A
 * call's requests are kept or left out with it: every turn of a kept call has its request's spans, and a call left
 * out makes none.
 */
export function callRequestContext(s: TracingState, callId: string): OTel.Context | undefined {
  const ctx = callContext(s, callId);
  return inLeftOut(s, ctx) ? ctx : undefined;
}

/**
 * The context of a call's trace: its `call` span as a remote parent; under a parent-based sampler, for a call the
 * sampler left out, the trace's left-out context (no span: see `leftOutContext`). Made once for each call: every
 * span, request and transcription of the call asks.
 */
export function callContext(s: TracingState, callId: string): OTel.Context {
  const { traceId, spanId } = s.calls.ids(callId);
  const sampled = s.calls.sampled(traceId);
  const known = s.callContexts.get(callId);
  if (known?.sampled === sampled) return known.ctx;
  const traceFlags = sampled ? s.api.TraceFlags.SAMPLED : s.api.TraceFlags.NONE;
  const ctx =
    sampled || !s.parentBased
      ? s.api.trace.setSpanContext(s.api.ROOT_CONTEXT, { traceId, spanId, traceFlags, isRemote: true })
      : leftOutContext(s, s.api.ROOT_CONTEXT, traceparentOf({ traceId, spanId, traceFlags }));
  return keepForCall(s.callContexts, callId, { sampled, ctx }).ctx;
}

/**
 * The `traceparent` of the trace left out that the context is in, if it is: a left-out context of ours, or a span of
 * a trace the sampler left out (a parent-based sampler then leaves out its children).
 */
function leftOutTrace(s: TracingState, ctx: OTel.Context): string | undefined {
  const marked = ctx.getValue(s.leftOut) as string | undefined;
  if (marked) return marked;
  const sc = s.api.trace.getSpanContext(ctx);
  return sc && (sc.traceFlags & s.api.TraceFlags.SAMPLED) === 0 && s.api.trace.isSpanContextValid(sc)
    ? traceparentOf(sc)
    : undefined;
}

const KINDS = { internal: 0, server: 1, client: 2, producer: 3, consumer: 4 } as const;

interface Opened {
  ctx: OTel.Context;
  handle: SpanHandle;
  /** Whether this span is ours to end (false when an existing one was reused). */
  owned: boolean;
  /** `ctx` is the current context: the function runs as it is, in it. */
  here?: boolean;
}

/** Whether options move a span of ours out of the current context (into a call's, a carried or a new trace). */
const movesOut = (options: SpanOptions): boolean => !!(options.root || options.call || options.parent);

/** Whether the context is one of a trace the sampler left out (see `leftOutContext`), under a parent-based sampler. */
const inLeftOut = (s: TracingState, ctx: OTel.Context): boolean =>
  s.parentBased && ctx.getValue(s.leftOut) !== undefined;

/**
 * Whether a span of ours opened now with `options` would be left out and change nothing where it runs: the current
 * context is in a trace the sampler left out and the options keep the span in it. `Traced` then calls the method as
 * it is (no attributes worked out, no context made).
 */
export function leftOutHere(options: SpanOptions = {}): boolean {
  const s = tracingState();
  return !!s && !movesOut(options) && inLeftOut(s, s.active());
}

/**
 * A span of ours not made: the function runs in `ctx` (a trace left out, a probe), which holds no span, so nothing
 * asks there which span of ours is current.
 */
const unmade = (ctx: OTel.Context): Opened => ({ ctx, handle: NOOP, owned: false });

function open(s: TracingState, name: string, attributes: SpanAttributesOf, options: SpanOptions): Opened {
  const active = s.active();
  // In a trace left out, a span that stays in it is not made and its context would say nothing more: no span for the
  // instrumentations, and the name of ours is asked only where a span is current (start.ts's outgoing requests).
  if (!movesOut(options) && inLeftOut(s, active))
    return { ctx: active, handle: NOOP, owned: false, here: true };
  const key = options.reuse ? keyOf(s, name) : undefined;
  const current = key ? (active.getValue(key) as SpanHandle | undefined) : undefined;
  if (current) {
    current.setAttributes(attributesOf(attributes));
    return { ctx: active, handle: current, owned: false };
  }
  let parent = active;
  let links: OTel.Link[] | undefined;
  if (options.root) parent = s.api.ROOT_CONTEXT;
  else if (options.call) {
    parent = callContext(s, options.call);
    if (inLeftOut(s, parent)) return unmade(parent);
    const here = s.api.trace.getSpanContext(active);
    if (here && s.api.trace.isSpanContextValid(here) && here.traceId !== s.calls.ids(options.call).traceId)
      links = [{ context: here }];
  } else if (options.parent) parent = parentFrom(s, options.parent) ?? active;
  const leftOut = options.root || !s.parentBased ? undefined : leftOutTrace(s, parent);
  if (leftOut !== undefined || (parent === active && s.suppressed(active))) {
    // A trace the sampler left out, or a probe (tracing suppressed): nothing of this span would be kept,
    // so none is made (no ids, no attributes), and its context holds no span, so the statements, commands and
    // requests under it are not instrumented either. Its children stay in that trace, left out as well.
    return unmade(leftOut !== undefined ? leftOutContext(s, parent, leftOut) : parent);
  }
  const span = s.tracer.startSpan(
    name,
    {
      kind: KINDS[options.kind ?? 'internal'],
      attributes: clean(attributesOf(attributes)),
      links,
      startTime: options.startTime,
    },
    parent,
  );
  if (s.parentBased && !span.isRecording()) {
    // A new trace the sampler's draw left out: as above, its context holds no span, only its traceparent.
    return unmade(leftOutContext(s, parent, traceparentOf(span.spanContext())));
  }
  const handle = handleOf(s, span);
  let ctx = s.api.trace.setSpan(parent, span).setValue(s.own, name);
  if (key) ctx = ctx.setValue(key, handle);
  return { ctx, handle, owned: true };
}

const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  !!v && typeof (v as { then?: unknown }).then === 'function';

/** Runs `fn` in the span; ends it when `fn` returns or its promise settles (failed on a throw or rejection). */
function runIn<T>(s: TracingState, opened: Opened, fn: (span: SpanHandle) => T): T {
  const { ctx, handle, owned } = opened;
  if (opened.here) return fn(handle);
  if (!owned) return s.run(ctx, () => fn(handle));
  let out: T;
  try {
    out = s.run(ctx, () => fn(handle));
  } catch (err) {
    handle.fail(err);
    handle.end();
    throw err;
  }
  if (!isThenable(out)) {
    handle.end();
    return out;
  }
  return out.then(
    (value) => {
      handle.end();
      return value;
    },
    (err: unknown) => {
      handle.fail(err);
      handle.end();
      throw err;
    },
  ) as T;
}

/**
 * Runs `fn` in a new span named `name` (a child of the current one, unless `options` say otherwise) and ends it
 * when `fn` is done; a throw or a rejection marks it failed. With tracing off, `fn` runs with a no-op span.
 */
export function withSpan<T>(
  name: string,
  attributes: SpanAttributesOf,
  fn: (span: SpanHandle) => T,
  options: SpanOptions = {},
): T {
  const s = tracingState();
  if (!s) return fn(NOOP);
  return runIn(s, open(s, name, attributes, options), fn);
}

/** A span the caller ends (`end()`), for work that is not one function; not made current. */
export function startSpan(
  name: string,
  attributes: SpanAttributesOf = {},
  options: SpanOptions = {},
): SpanHandle {
  const s = tracingState();
  if (!s) return NOOP;
  const opened = open(s, name, attributes, { ...options, reuse: false });
  return opened.handle;
}

/** A finished span of the current context from `start` to `end` (epoch milliseconds): a step timed elsewhere. */
export function recordSpan(name: string, attributes: SpanAttributesOf, start: number, end: number): void {
  const s = tracingState();
  if (!s) return;
  const { handle } = open(s, name, attributes, { startTime: start });
  handle.end(end);
}

/**
 * An async iterable followed in a span: `source` makes it (given the span), every step runs in the span (so a request
 * made by the source is its child), `onItem` sees each item, and the span ends when the iteration does (failed on an
 * error; an early exit closes the source). With tracing off the source is answered as it is.
 */
export function followInSpan<T>(
  name: string,
  attributes: SpanAttributesOf,
  source: (span: SpanHandle) => AsyncIterable<T>,
  onItem?: (span: SpanHandle, item: T, index: number) => void,
): AsyncIterable<T> {
  const s = tracingState();
  if (!s) return source(NOOP);
  const opened = open(s, name, attributes, {});
  // Even with no span, each step runs in the context the stream was made in, not in its consumer's.
  const iterable = s.run(opened.ctx, () => source(opened.handle));
  return follow(s, opened, iterable, onItem);
}

/**
 * The stream's iterator, each step run in the span's context, the span ended when the stream is done (failed on an
 * error; an early exit closes the source first). An iterator object rather than an async generator: a generator would
 * add its own promises to every item of every stream (a model's tokens, speech's audio), a trace kept or not.
 */
function follow<T>(
  s: TracingState,
  { ctx, handle }: Opened,
  source: AsyncIterable<T>,
  onItem?: (span: SpanHandle, item: T, index: number) => void,
): AsyncIterable<T> {
  if (handle === NOOP) {
    // No span (a trace left out): each step only runs in the stream's context.
    return {
      [Symbol.asyncIterator]: () => {
        const it = s.run(ctx, () => source[Symbol.asyncIterator]());
        return {
          next: () => s.run(ctx, () => it.next()),
          return: (value?: unknown) =>
            it.return ? s.run(ctx, () => it.return!(value)) : Promise.resolve({ done: true, value }),
        } as AsyncIterator<T>;
      },
    };
  }
  return {
    [Symbol.asyncIterator]: () => {
      const it = s.run(ctx, () => source[Symbol.asyncIterator]());
      let ended = false;
      let index = 0;
      const end = () => {
        if (ended) return;
        ended = true;
        handle.end();
      };
      const failed = (err: unknown): never => {
        if (!ended) handle.fail(err);
        end();
        throw err;
      };
      const done: IteratorResult<T> = { done: true, value: undefined };
      const step = (step: IteratorResult<T>): IteratorResult<T> => {
        if (step.done) end();
        else if (onItem) {
          try {
            onItem(handle, step.value, index++);
          } catch (err) {
            failed(err);
          }
        }
        return step;
      };
      return {
        next: () => {
          if (ended) return Promise.resolve(done);
          try {
            return s.run(ctx, () => it.next()).then(step, failed);
          } catch (err) {
            return (async () => failed(err))();
          }
        },
        return: async (value?: unknown) => {
          if (ended) return { done: true, value } as IteratorResult<T>;
          try {
            const closed = it.return ? await s.run(ctx, () => it.return!(value)) : undefined;
            return closed ?? ({ done: true, value } as IteratorResult<T>);
          } finally {
            end();
          }
        },
      };
    },
  };
}

/**
 * A binder to the context current now: `bind(fn)` runs `fn` in it wherever it is called from (a callback handed into
 * a span, say, that must not become that span's child). The function itself with tracing off.
 */
export function contextBinder(): <F extends (...args: never[]) => unknown>(fn: F) => F {
  const s = tracingState();
  if (!s) return (fn) => fn;
  const here = s.active();
  return (fn) => s.api.context.bind(here, fn);
}

/** The name of the innermost span of ours in the current context or `ctx` (`llm`, `turn`, ...), if any. */
export function currentOwnSpan(ctx?: OTel.Context): string | undefined {
  const s = tracingState();
  return s ? ((ctx ?? s.active()).getValue(s.own) as string | undefined) : undefined;
}
