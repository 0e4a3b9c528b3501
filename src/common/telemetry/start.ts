/* eslint-disable @typescript-eslint/no-require-imports -- the SDK is loaded only when tracing is on */
import type { IncomingMessage } from 'node:http';
import type { ClientRequest } from 'node:http';
import type * as OTel from '@opentelemetry/api';
import type { Sampler } from '@opentelemetry/sdk-trace';
import {
  heldContext,
  requestContextManager,
  runInContext,
  routeAround,
  routeAroundInstrumentation,
  routeOutgoingAroundInstrumentation,
} from './request-context';
import { callRequestContext, currentOwnSpan, newLeftOutTrace, parentFrom } from './telemetry';
import { listOf, startTraceSdk, type TraceSdk } from './trace-sdk';
import { activateTracing, deactivateTracing, tracingState } from './tracing-state';

type Env = Record<string, string | undefined>;

/** Paths whose requests are never traced: probes and scrapes. */
const UNTRACED_PATHS = new Set(['/health', '/health/ready', '/metrics']);
/** Spans of ours that time their own HTTP request: no client span of the instrumentation under them. */
const OWN_REQUEST_SPANS = new Set(['llm', 'stt', 'tts', 'webhook']);

/** Whether the environment asks for tracing: an OTLP endpoint, and neither OTEL_SDK_DISABLED nor no exporter. */
export function tracingRequested(env: Env = process.env): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return (
    !!endpoint &&
    env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true' &&
    env.OTEL_TRACES_EXPORTER?.trim() !== 'none'
  );
}

let running: { sdk: TraceSdk; description: string } | null = null;

/** OTEL_TRACES_SAMPLER_ARG as a ratio sampler's share: 1 (every trace) when empty, unset or not in [0, 1]. */
function samplerRatio(env: Env): number {
  const arg = Number(env.OTEL_TRACES_SAMPLER_ARG?.trim() || NaN);
  return Number.isFinite(arg) && arg >= 0 && arg <= 1 ? arg : 1;
}

/**
 * The sampler of OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG (default: parent-based, always on). An empty value
 * is unset (compose passes every variable, empty when the host has none): a ratio sampler then keeps every trace.
 * With `requestsDrawn` (requests that would start a trace are drawn before they are instrumented, `leftOutRequests`),
 * a parent-based ratio sampler keeps the request spans that reach its root: they won that draw already.
 */
export function samplerFromEnv(env: Env, requestsDrawn = false): Sampler {
  const t = require('@opentelemetry/sdk-trace') as typeof import('@opentelemetry/sdk-trace');
  const ratio = () => new t.TraceIdRatioBasedSampler(samplerRatio(env));
  switch (env.OTEL_TRACES_SAMPLER?.trim()) {
    case 'always_on':
      return new t.AlwaysOnSampler();
    case 'always_off':
      return new t.AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_off':
      return new t.ParentBasedSampler({ root: new t.AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new t.ParentBasedSampler({ root: requestsDrawn ? keepingDrawnRequests(ratio()) : ratio() });
    default:
      return new t.ParentBasedSampler({ root: new t.AlwaysOnSampler() });
  }
}

/**
 * A root sampler for requests drawn before they are instrumented: an incoming request's span that reaches it won the
 * draw already and is kept (drawn again against the ratio, only share² of requests would be traced). Every other new
 * trace (a call's, a job's, a span of ours) is the ratio's to decide.
 */
function keepingDrawnRequests(ratio: Sampler): Sampler {
  const { SpanKind } = require('@opentelemetry/api') as typeof OTel;
  const { SamplingDecision } =
    require('@opentelemetry/sdk-trace') as typeof import('@opentelemetry/sdk-trace');
  return {
    shouldSample: (ctx, traceId, name, kind, attributes, links) =>
      kind === SpanKind.SERVER && attributes['http.request.method'] !== undefined
        ? { decision: SamplingDecision.RECORD_AND_SAMPLED }
        : ratio.shouldSample(ctx, traceId, name, kind, attributes, links),
    toString: () => `DrawnRequestsKept{${ratio.toString()}}`,
  };
}

/** A query string with every value replaced (names kept): values may be phone numbers, names or keys. */
function redactedQuery(search: string): string {
  return search
    .split('&')
    .map((pair) => `${pair.split('=')[0]}=REDACTED`)
    .join('&');
}

function isIncoming(req: ClientRequest | IncomingMessage): req is IncomingMessage {
  return typeof (req as IncomingMessage).headers === 'object' && 'httpVersion' in req;
}

/**
 * The share of new traces the sampler keeps when it is parent-based with a fixed root decision
 * (`parentbased_traceidratio`, `parentbased_always_off`; 1 for the default, always on): a request that would start a
 * trace is drawn against it before it is instrumented.
 */
export function rootShare(env: Env): number {
  switch (env.OTEL_TRACES_SAMPLER?.trim()) {
    case 'parentbased_always_off':
      return 0;
    case 'parentbased_traceidratio':
      return samplerRatio(env);
    default:
      return 1;
  }
}

/** Whether a request is left out untraced: it starts a trace (no `traceparent`) and loses the draw against `share`. */
export function leftOutRequests(share: number): (req: IncomingMessage) => boolean {
  if (share >= 1) return () => false;
  return (req) => req.headers.traceparent === undefined && Math.random() >= share;
}

/** A path naming a call (`/api/v1/calls/{uuid}…`, `/api/v1/calls/action/{uuid}/…`): the call's uuid. */
const CALL_PATH =
  /^\/api\/v1\/calls\/(?:action\/)?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:\/|$)/i;

/** The path of a request, without its query. */
const pathOf = (req: IncomingMessage): string => {
  const url = req.url ?? '';
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
};

/**
 * Which requests are sent round the HTTP instrumentation (`routeAroundInstrumentation`), and in what context: probes,
 * in `probe` (untraced); under a parent-based sampler, a request continuing a trace its caller's sampler left out, in
 * that trace (this one is left out too); a request on a call whose trace the sampler left out, in that trace (a call's
 * requests follow its decision, not a draw of their own: `callRequestContext`); and any other request that would start
 * a trace and loses the draw against `share`, in a left-out trace of its own. Undefined for the others: the
 * instrumentation traces them.
 */
export function requestRouting(
  share: number,
  parentBased: boolean,
  probe: OTel.Context,
): (req: IncomingMessage) => OTel.Context | undefined {
  const leftOut = leftOutRequests(share);
  return (req) => {
    const path = pathOf(req);
    if (UNTRACED_PATHS.has(path)) return probe;
    const s = tracingState();
    if (!s) return undefined;
    const traceparent = req.headers.traceparent;
    if (typeof traceparent === 'string') {
      const parent = parentBased ? parentFrom(s, traceparent) : undefined;
      return parent?.getValue(s.leftOut) !== undefined ? parent : undefined;
    }
    const call = parentBased ? CALL_PATH.exec(path)?.[1] : undefined;
    if (call) return callRequestContext(s, call.toLowerCase());
    return leftOut(req) ? newLeftOutTrace(s) : undefined;
  };
}

/**
 * Whether an outgoing request made now gets no span of the HTTP instrumentation: one timed by a span of ours, and one
 * made where no span is current, which would get only an empty span (a trace left out, a probe, work outside any
 * trace).
 */
export function untracedRequest(
  api: typeof OTel,
  active = (): OTel.Context => api.context.active(),
): boolean {
  const ctx = active();
  return api.trace.getSpan(ctx) === undefined || OWN_REQUEST_SPANS.has(currentOwnSpan(ctx) ?? '');
}

/**
 * HTTP spans without query values, named by their route, with the request's workspace. The probes, the requests that
 * continue a trace left out and those the sampler's draw leaves out are sent round it (`routeAroundInstrumentation`,
 * in startTelemetry); should that not be in place, probes are still ignored.
 */
function httpInstrumentation(api: typeof OTel) {
  const { HttpInstrumentation } =
    require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  return new HttpInstrumentation({
    ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has(pathOf(req)),
    requireParentforOutgoingSpans: true,
    // Left alone (no span, no header, no listener bound); those are sent round the instrumentation before it parses
    // their URL (`routeOutgoingAroundInstrumentation`), this is for should that not be in place.
    ignoreOutgoingRequestHook: () => untracedRequest(api),
    requestHook: (span, req) => {
      if (isIncoming(req)) {
        const q = (req.url ?? '').indexOf('?');
        if (q >= 0) span.setAttribute('url.query', redactedQuery(req.url!.slice(q + 1)));
        return;
      }
      const path = (req.path ?? '').split('?')[0];
      const host = req.getHeader('host');
      span.setAttribute('url.full', `${req.protocol}//${typeof host === 'string' ? host : req.host}${path}`);
    },
    applyCustomAttributesOnSpan: (span, req) => {
      if (!isIncoming(req)) return;
      const express = req as IncomingMessage & {
        route?: { path?: unknown };
        baseUrl?: string;
        workspace?: { id?: unknown };
      };
      if (typeof express.route?.path === 'string') {
        const route = `${express.baseUrl ?? ''}${express.route.path}`;
        span.setAttribute('http.route', route);
        span.updateName(`${req.method ?? 'GET'} ${route}`);
      }
      if (typeof express.workspace?.id === 'string') span.setAttribute('workspace.id', express.workspace.id);
    },
  });
}

/**
 * Starts OpenTelemetry tracing when the environment asks for it (`tracingRequested`): the SDK's trace pipeline
 * (trace-sdk.ts) with the OTLP/HTTP JSON exporter (unless OTEL_EXPORTER_OTLP_PROTOCOL or
 * OTEL_EXPORTER_OTLP_TRACES_PROTOCOL names http/protobuf or grpc), the standard OTEL_* variables (service name,
 * resource attributes, sampler, limits, batch, propagators), and the HTTP
 * (incoming and outgoing), PostgreSQL and ioredis instrumentations (OTEL_NODE_DISABLED_INSTRUMENTATIONS leaves
 * any of `http`, `pg`, `ioredis` out); Bull jobs carry their producer's trace. Must run
 * before Nest, pg, ioredis and Bull are loaded. Without the variables nothing is loaded and the helpers stay no-ops.
 * Answers a line describing what was started, or null.
 */
export function startTelemetry(env: Env = process.env): string | null {
  if (running) return running.description;
  if (!tracingRequested(env)) return null;
  const api = require('@opentelemetry/api') as typeof OTel;
  const t = require('@opentelemetry/sdk-trace') as typeof import('@opentelemetry/sdk-trace');
  const { PgInstrumentation } =
    require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const { IORedisInstrumentation } =
    require('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');
  const { CallIdGenerator, callTraces } = require('./call-trace') as typeof import('./call-trace');

  const named =
    !!env.OTEL_SERVICE_NAME?.trim() || /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  // OTEL_NODE_DISABLED_INSTRUMENTATIONS=pg,ioredis: fewer spans (each costs CPU), our own spans kept.
  const left = listOf(env.OTEL_NODE_DISABLED_INSTRUMENTATIONS) ?? [];
  const off = new Set(left);
  const sampler = samplerFromEnv(env, !off.has('http'));
  const ids = new CallIdGenerator(new t.RandomIdGenerator());
  const sdk = startTraceSdk(env, {
    serviceName: named ? undefined : 'agent-platform',
    sampler,
    idGenerator: ids,
    contextManager: off.has('http') ? undefined : requestContextManager(),
    // Statements run to kilobytes: past 1 KiB an attribute is cut (less to encode and send), unless the standard
    // OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT or OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT says otherwise.
    spanLimits: { attributeValueLengthLimit: 1024 },
    instrumentations: [
      ...(off.has('http') ? [] : [httpInstrumentation(api)]),
      ...(off.has('pg')
        ? []
        : [new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true })]),
      // Command names only: arguments hold keys with phone numbers and queued message texts.
      ...(off.has('ioredis')
        ? []
        : [
            new IORedisInstrumentation({
              requireParentSpan: true,
              dbStatementSerializer: (command) => command,
            }),
          ]),
    ],
  });
  const core = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  const parentBased = sampler instanceof t.ParentBasedSampler;
  // The service's context manager (with the HTTP instrumentation) holds the context where it can be read directly,
  // once it is the one registered (another one registered first, say by a preloaded agent, keeps its place).
  const probe = api.createContextKey('agent-platform.context-manager-probe');
  const ours =
    !off.has('http') &&
    api.context.with(api.ROOT_CONTEXT.setValue(probe, true), () => heldContext()?.getValue(probe) === true);
  const active = ours ? () => heldContext() ?? api.ROOT_CONTEXT : () => api.context.active();
  const run = ours ? runInContext : undefined;
  activateTracing({
    api,
    ids,
    calls: callTraces(ids, sampler, api),
    capture: env.OTEL_CAPTURE_CONTENT?.trim().toLowerCase() === 'true',
    parentBased,
    suppressed: core.isTracingSuppressed,
    active,
    run,
  });
  if (!off.has('http')) {
    routeAroundInstrumentation(
      api,
      requestRouting(rootShare(env), parentBased, core.suppressTracing(api.ROOT_CONTEXT)),
    );
    routeOutgoingAroundInstrumentation(() => untracedRequest(api, active));
  }
  // Statements and commands made where no span is current (a trace left out, work outside any trace) go straight to
  // the driver: the instrumentations would find no parent span and skip them too, after their own checks. Loading
  // them here has the SDK patch them first.
  const spanless = () => api.trace.getSpan(active()) === undefined;
  if (!off.has('pg')) {
    const pg = require('pg') as typeof import('pg');
    routeAround(pg.Client.prototype, 'query', spanless);
    // A pool checkout makes no span (ignoreConnectSpans): the instrumentation's wrapper would only hang listeners on
    // the pool, the first time it runs in a trace, that count every checkout and return for connection metrics,
    // which nothing reads (no metrics pipeline).
    routeAround(Object.getPrototypeOf(pg.Pool.prototype) as object, 'connect', () => true);
  }
  if (!off.has('ioredis'))
    routeAround((require('ioredis') as { prototype: object }).prototype, 'sendCommand', spanless);
  (require('../queue/job-tracing') as typeof import('../queue/job-tracing')).traceBullJobs();
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const description =
    `tracing on: OTLP ${sdk.protocol} to ${endpoint}, sampler ` +
    `${env.OTEL_TRACES_SAMPLER?.trim() || 'parentbased_always_on'}` +
    (env.OTEL_TRACES_SAMPLER_ARG ? ` ${env.OTEL_TRACES_SAMPLER_ARG}` : '') +
    (left.length ? `; without ${left.join(', ')} spans` : '') +
    (env.OTEL_CAPTURE_CONTENT?.trim().toLowerCase() === 'true' ? '; message content captured' : '');
  running = { sdk, description };
  return description;
}

/** Exports what is left and stops tracing (at most `timeoutMs`); nothing to do when it is off. */
export async function stopTelemetry(timeoutMs = 5000): Promise<void> {
  const current = running;
  if (!current) return;
  running = null;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    current.sdk.shutdown().catch(() => undefined),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
  ]);
  clearTimeout(timer);
  deactivateTracing();
}
