import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as OTel from '@opentelemetry/api';
import { tracingState } from './tracing-state';
import { ambientSlot } from '@/common/context/ambient';

/** The context of each request: given when it went round the HTTP instrumentation, or the one it bound it to. */
const contexts = new WeakMap<IncomingMessage, OTel.Context>();

/** The request and response the HTTP instrumentation is handing to the server now (it binds them first). */
let serving: { req: unknown; res: unknown } | undefined;

type Emit = (this: unknown, event: string | symbol, ...args: unknown[]) => boolean;
type Fn = (this: unknown, ...args: unknown[]) => unknown;
/** An instrumentation's wrapper (shimmer keeps the function it wrapped); a route of ours keeps it under ROUTED. */
type Wrapped<F> = F & { __original?: F; [ROUTED]?: F };
const ROUTED = Symbol('agent-platform.routed');

/** The instrumentation's wrapper of `target[name]` and the function it wrapped (under a route of ours, if any). */
function wrapperOf<F>(target: object, name: string): { instrumented: F; original: F } | undefined {
  const current = (target as Record<string, unknown>)[name] as Wrapped<F> | undefined;
  const instrumented = (current?.[ROUTED] ?? current) as Wrapped<F> | undefined;
  const original = instrumented?.__original;
  return instrumented && original ? { instrumented, original } : undefined;
}

/**
 * Sends the requests `contextOf` gives a context (the probes, those continuing a trace the sampler left out, and
 * those the sampler's draw leaves out) round the incoming-HTTP instrumentation of `http` and `https` servers: each
 * runs in its context, with no span built and its request and response emitters not bound. Binding patches the
 * listener methods onto each emitter, so that every request and response object Node's HTTP code and Express then
 * handle is of another shape; that costs more than the binding itself. The others (no context) go through the
 * instrumentation as before.
 *
 * Runs once the instrumentation has patched `Server.prototype.emit`; a module it has not patched is left alone.
 * Installed again (tracing started anew in the process), it replaces its earlier wrapper. Should the instrumentation
 * be disabled, its unwrap restores the server's own `emit`.
 */
export function routeAroundInstrumentation(
  api: typeof OTel,
  contextOf: (req: IncomingMessage) => OTel.Context | undefined,
): void {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only with tracing on, after the SDK patched them */
  const modules = [require('node:http'), require('node:https')] as { Server: { prototype: object } }[];
  /* eslint-enable @typescript-eslint/no-require-imports */
  for (const mod of modules) {
    const proto = mod.Server.prototype;
    const wrapped = wrapperOf<Emit>(proto, 'emit');
    if (!wrapped) continue;
    const { instrumented, original } = wrapped;
    // The server's every event comes through here: its arguments are passed on as they are, no array built.
    /* eslint-disable prefer-rest-params */
    const emit = function (this: unknown, event: string | symbol) {
      const args = arguments as unknown as [string | symbol, ...unknown[]];
      if (event !== 'request') return instrumented.apply(this, args);
      const req = args[1] as IncomingMessage;
      const ctx = contextOf(req);
      if (ctx) {
        contexts.set(req, ctx);
        const serve = () => original.apply(this, args);
        const s = tracingState();
        return s ? s.run(ctx, serve) : api.context.with(ctx, serve);
      }
      serving = { req, res: args[2] };
      try {
        return instrumented.apply(this, args);
      } finally {
        serving = undefined;
      }
    } as Emit;
    /* eslint-enable prefer-rest-params */
    install(proto, 'emit', emit, wrapped);
  }
}

/**
 * Puts `route` in place of the instrumentation's wrapper of `target[name]`, marked as shimmer marks a wrapper: the
 * instrumentation's wrapper kept under ROUTED (installed again, a route replaces its earlier one), `__original` the
 * unpatched function, and `__unwrap` (the instrumentation disabled) restores it.
 */
function install<F>(
  target: object,
  name: string,
  route: F,
  { instrumented, original }: { instrumented: F; original: F },
) {
  const holder = target as Record<string, unknown>;
  const hidden = (value: unknown) => ({ value, enumerable: false, configurable: true });
  Object.defineProperties(route, {
    [ROUTED]: hidden(instrumented),
    __original: hidden(original),
    __wrapped: hidden(true),
    __unwrap: hidden(() => {
      if (holder[name] === route) holder[name] = original;
    }),
  });
  holder[name] = route;
}

/**
 * Sends the calls of `target[name]` that `untraced` says would get no span round the instrumentation that wrapped
 * it, straight to the unwrapped function; the others go through it as before. Answers whether it was wrapped (one the
 * instrumentation has not patched is left alone). Installed again, it replaces its earlier route.
 */
export function routeAround(target: object, name: string, untraced: () => boolean): boolean {
  const wrapped = wrapperOf<Fn>(target, name);
  if (!wrapped) return false;
  const { instrumented, original } = wrapped;
  const route: Fn = function (this: unknown) {
    // eslint-disable-next-line prefer-rest-params -- no array built for each call: this runs for every statement
    return (untraced() ? original : instrumented).apply(this, arguments as unknown as unknown[]);
  };
  install(target, name, route, wrapped);
  return true;
}

/**
 * Sends the outgoing requests `untraced` says would get no span (no span is current, or a span of ours times the
 * request) round the outgoing-HTTP instrumentation of `http` and `https` (`request` and `get`): straight to Node's
 * own functions. The instrumentation would leave them alone as well (its `ignoreOutgoingRequestHook`), but only after
 * parsing each request's URL and copying its options, which costs more than the rest of an untraced request's
 * tracing. The others go through it as before. Runs once the instrumentation has patched the modules; one it has not
 * patched is left alone.
 */
export function routeOutgoingAroundInstrumentation(untraced: () => boolean): void {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only with tracing on, after the SDK patched them */
  const modules = [require('node:http'), require('node:https')] as object[];
  /* eslint-enable @typescript-eslint/no-require-imports */
  for (const mod of modules) for (const name of ['request', 'get']) routeAround(mod, name, untraced);
}

/** The trace context, in the shared store of what running work carries (common/context/ambient.ts). */
const traceContext = ambientSlot<OTel.Context>();

/** The context `requestContextManager` holds now, if any: what its `active()` answers, without the API's lookup. */
export const heldContext = (): OTel.Context | undefined => traceContext.get();

/** Runs `fn` in `ctx` as `requestContextManager`'s `with` does, without the API's lookup of the manager. */
export const runInContext = <T>(ctx: OTel.Context, fn: () => T): T => traceContext.run(ctx, fn);

/**
 * The SDK's context manager, keeping the context in the shared store's slot (Node's AsyncLocalStorage, as the SDK's
 * own, but no second one: each adds its step to every promise), except that it does not bind the request and
 * response the HTTP instrumentation hands to the server: it keeps the request's context instead, which
 * `resumeRequestContext` restores after the body parsers. Binding an emitter patches its listener methods onto it,
 * and every request and response then handled is of another shape for Node's HTTP code and Express; the
 * instrumentation's own listeners (the span's end) need no context.
 */
export function requestContextManager(): OTel.ContextManager {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only with tracing on */
  const { AsyncLocalStorageContextManager } =
    require('@opentelemetry/context-async-hooks') as typeof import('@opentelemetry/context-async-hooks');
  const { ROOT_CONTEXT } = require('@opentelemetry/api') as typeof OTel;
  /* eslint-enable @typescript-eslint/no-require-imports */
  class RequestContextManager extends AsyncLocalStorageContextManager {
    override active(): OTel.Context {
      return traceContext.get() ?? ROOT_CONTEXT;
    }

    override with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
      context: OTel.Context,
      fn: F,
      thisArg?: ThisParameterType<F>,
      ...args: A
    ): ReturnType<F> {
      return traceContext.run(context, () => fn.apply(thisArg, args));
    }

    override attach(
      context: OTel.Context,
    ): ReturnType<import('@opentelemetry/context-async-hooks').AsyncLocalStorageContextManager['attach']> {
      const previous = traceContext.get();
      traceContext.enter(context);
      let disposed = false;
      return {
        dispose: () => {
          if (!disposed) traceContext.enter(previous);
          disposed = true;
        },
      };
    }

    /** The store is shared: switching tracing off leaves it to the rest. */
    override disable(): this {
      return this;
    }

    override bind<T>(context: OTel.Context, target: T): T {
      if (serving && (target === serving.req || target === serving.res)) {
        if (target === serving.req) contexts.set(target as IncomingMessage, context);
        return target;
      }
      return super.bind(context, target);
    }
  }
  return new RequestContextManager();
}

/**
 * Express middleware, mounted after the body parsers: a request's emitters are not bound to its context (sent round
 * the instrumentation, or by `requestContextManager`), so it lost its context to the parsers' stream events, and gets
 * it back here: the handlers, and the jobs and events they cause, run in its trace (under its span when traced). A
 * listener a handler adds to the request or the response (`close`, `finish`) runs outside it: one that starts work of
 * its own (a job, a span) binds it with `contextBinder`.
 */
export function resumeRequestContext(req: IncomingMessage, _res: ServerResponse, next: () => void): void {
  const ctx = contexts.get(req);
  const s = tracingState();
  if (ctx && s) s.run(ctx, next);
  else next();
}
