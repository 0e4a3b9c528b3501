import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as OTel from '@opentelemetry/api';
import { tracingState } from './tracing-state';

/** The context of each request that went round the HTTP instrumentation. */
const contexts = new WeakMap<IncomingMessage, OTel.Context>();

type Emit = (this: unknown, event: string | symbol, ...args: unknown[]) => boolean;
/** The instrumentation's `emit` (shimmer keeps the one it wrapped); ours keeps the instrumentation's under ROUTED. */
type Wrapped = Emit & { __original?: Emit; [ROUTED]?: Emit };
const ROUTED = Symbol('agent-platform.routed-emit');

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
    const proto = mod.Server.prototype as { emit: Wrapped };
    const instrumented = proto.emit[ROUTED] ?? proto.emit;
    const original = (instrumented as Wrapped).__original;
    if (!original) continue;
    const emit: Emit = function (this: unknown, event, ...args) {
      if (event === 'request') {
        const req = args[0] as IncomingMessage;
        const ctx = contextOf(req);
        if (ctx) {
          contexts.set(req, ctx);
          return api.context.with(ctx, () => original.call(this, event, ...args));
        }
      }
      return instrumented.call(this, event, ...args);
    };
    const hidden = (value: unknown) => ({ value, enumerable: false, configurable: true });
    Object.defineProperties(emit, {
      [ROUTED]: hidden(instrumented),
      __original: hidden(original),
      __wrapped: hidden(true),
      __unwrap: hidden(() => {
        if (proto.emit === emit) proto.emit = original;
      }),
    });
    proto.emit = emit;
  }
}

/**
 * Express middleware, mounted after the body parsers: a request sent round the instrumentation (its emitters are not
 * bound) lost its context to the parsers' stream events, and gets it back here, so that the handlers, and the jobs
 * and events they cause, stay in its trace. A listener a handler adds to the request or the response (`close`,
 * `finish`) runs outside it: one that starts work of its own (a job, a span) binds it with `contextBinder`.
 */
export function resumeRequestContext(req: IncomingMessage, _res: ServerResponse, next: () => void): void {
  const ctx = contexts.get(req);
  const s = tracingState();
  if (ctx && s) s.api.context.with(ctx, next);
  else next();
}
