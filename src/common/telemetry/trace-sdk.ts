/* eslint-disable @typescript-eslint/no-require-imports -- the SDK is loaded only when tracing is on */
import type * as OTel from '@opentelemetry/api';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import type { ResourceDetector } from '@opentelemetry/resources';
import type { IdGenerator, Sampler, SpanExporter, SpanLimits } from '@opentelemetry/sdk-trace';

type Env = Record<string, string | undefined>;

/** The OTLP protocols an exporter is built for (OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, OTEL_EXPORTER_OTLP_PROTOCOL). */
export const OTLP_PROTOCOLS = ['http/json', 'http/protobuf', 'grpc'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** The protocol asked for: http/json when unset or empty; undefined for one this service does not speak. */
export function otlpProtocol(env: Env): OtlpProtocol | undefined {
  const asked = askedProtocol(env)?.value;
  if (!asked) return 'http/json';
  return (OTLP_PROTOCOLS as readonly string[]).includes(asked) ? (asked as OtlpProtocol) : undefined;
}

/** The protocol variable that is set (the traces' one first) and its value. */
function askedProtocol(env: Env): { name: string; value: string } | undefined {
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const value = env[name]?.trim();
    if (value) return { name, value };
  }
  return undefined;
}

/** A comma list of the environment, trimmed, without empty items; undefined when unset or empty. */
export function listOf(value: string | undefined): string[] | undefined {
  const items = (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  return items.length ? items : undefined;
}

/** A number of the environment that is a whole number ≥ `least`, else undefined (the SDK's default then). */
function countOf(env: Env, names: string[], least = 0): number | undefined {
  for (const name of names) {
    const n = Number(env[name]?.trim() || NaN);
    if (Number.isInteger(n) && n >= least) return n;
  }
  return undefined;
}

/**
 * The batch processor's settings: each a whole number above 0, else the SDK's default (as the Node SDK: a queue or a
 * batch of 0 would export nothing, a delay or a timeout of 0 would spin or fail every export).
 */
export function batchSettings(env: Env) {
  return {
    maxQueueSize: countOf(env, ['OTEL_BSP_MAX_QUEUE_SIZE'], 1),
    scheduledDelayMillis: countOf(env, ['OTEL_BSP_SCHEDULE_DELAY'], 1),
    exportTimeoutMillis: countOf(env, ['OTEL_BSP_EXPORT_TIMEOUT'], 1),
    maxExportBatchSize: countOf(env, ['OTEL_BSP_MAX_EXPORT_BATCH_SIZE'], 1),
  };
}

/** The span limits of the environment (OTEL_SPAN_*_LIMIT, OTEL_ATTRIBUTE_*_LIMIT), else `ours`, else the SDK's. */
export function spanLimitsFrom(env: Env, ours: SpanLimits = {}): SpanLimits {
  return {
    attributeCountLimit:
      countOf(env, ['OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT', 'OTEL_ATTRIBUTE_COUNT_LIMIT']) ??
      ours.attributeCountLimit,
    attributeValueLengthLimit:
      countOf(env, ['OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT', 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT']) ??
      ours.attributeValueLengthLimit,
    eventCountLimit: countOf(env, ['OTEL_SPAN_EVENT_COUNT_LIMIT']) ?? ours.eventCountLimit,
    linkCountLimit: countOf(env, ['OTEL_SPAN_LINK_COUNT_LIMIT']) ?? ours.linkCountLimit,
    attributePerEventCountLimit:
      countOf(env, ['OTEL_SPAN_ATTRIBUTE_PER_EVENT_COUNT_LIMIT']) ?? ours.attributePerEventCountLimit,
    attributePerLinkCountLimit:
      countOf(env, ['OTEL_SPAN_ATTRIBUTE_PER_LINK_COUNT_LIMIT']) ?? ours.attributePerLinkCountLimit,
  };
}

/** The exporter of the protocol: each is loaded only when asked for. */
export function exporterFor(protocol: OtlpProtocol): SpanExporter {
  switch (protocol) {
    case 'http/protobuf':
      return new (
        require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto')
      ).OTLPTraceExporter();
    case 'grpc':
      return new (
        require('@opentelemetry/exporter-trace-otlp-grpc') as typeof import('@opentelemetry/exporter-trace-otlp-grpc')
      ).OTLPTraceExporter();
    default:
      return new (
        require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http')
      ).OTLPTraceExporter();
  }
}

/**
 * OTEL_PROPAGATORS: `tracecontext` and `baggage` (the default, both), or `none`. Others (b3, jaeger, xray) are not
 * carried by this service: warned about and left out.
 */
export function propagatorFrom(env: Env, api: typeof OTel): OTel.TextMapPropagator | null {
  const core = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  const names = listOf(env.OTEL_PROPAGATORS) ?? ['tracecontext', 'baggage'];
  if (names.includes('none')) return null;
  const propagators: OTel.TextMapPropagator[] = [];
  for (const name of new Set(names)) {
    if (name === 'tracecontext') propagators.push(new core.W3CTraceContextPropagator());
    else if (name === 'baggage') propagators.push(new core.W3CBaggagePropagator());
    else
      api.diag.warn(`OTEL_PROPAGATORS: "${name}" is not supported (tracecontext, baggage, none); left out`);
  }
  return new core.CompositePropagator({ propagators });
}

/**
 * OTEL_NODE_RESOURCE_DETECTORS (host, os, serviceinstance, process, env, all, none); default env, process, host. With
 * `all` they run in the Node SDK's order, `env` last, so that OTEL_RESOURCE_ATTRIBUTES wins over what is detected.
 */
export function detectorsFrom(env: Env, api: typeof OTel): ResourceDetector[] {
  const r = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const known: Record<string, ResourceDetector> = {
    host: r.hostDetector,
    os: r.osDetector,
    serviceinstance: r.serviceInstanceIdDetector,
    process: r.processDetector,
    env: r.envDetector,
  };
  const names = listOf(env.OTEL_NODE_RESOURCE_DETECTORS);
  if (!names) return [r.envDetector, r.processDetector, r.hostDetector];
  if (names.includes('all')) return Object.values(known);
  if (names.includes('none')) return [];
  return names.flatMap((name) => {
    if (known[name]) return [known[name]];
    api.diag.warn(`OTEL_NODE_RESOURCE_DETECTORS: unknown detector "${name}"`);
    return [];
  });
}

export interface TraceSdkOptions {
  sampler: Sampler;
  idGenerator: IdGenerator;
  /** The context manager to register (the SDK's AsyncLocalStorage one when undefined). */
  contextManager?: OTel.ContextManager;
  instrumentations: Instrumentation[];
  /** The service name when the environment names none (OTEL_SERVICE_NAME, `service.name` of the resource). */
  serviceName?: string;
  /** Span limits of ours, under those of the environment (OTEL_SPAN_*_LIMIT, OTEL_ATTRIBUTE_*_LIMIT). */
  spanLimits?: SpanLimits;
}

/** A started trace pipeline: `shutdown` exports what is queued and stops the provider. */
export interface TraceSdk {
  /** The OTLP protocol spans are exported with. */
  protocol: OtlpProtocol;
  shutdown(): Promise<void>;
}

/**
 * The OpenTelemetry trace pipeline, registered with the API: what `@opentelemetry/sdk-node` sets up for traces, from
 * the same packages and the same OTEL_* variables, without its metrics, logs, Zipkin, B3 and Jaeger parts (loading
 * them alone keeps about 3 MiB more heap a process, which every major collection marks). In order: the
 * instrumentations patch their modules, the context manager and the propagator are registered, the resource is
 * detected, and the tracer provider (sampler, ids, limits, a batch processor in front of the OTLP exporter) is set.
 */
export function startTraceSdk(env: Env, options: TraceSdkOptions): TraceSdk {
  const api = require('@opentelemetry/api') as typeof OTel;
  const core = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  const t = require('@opentelemetry/sdk-trace') as typeof import('@opentelemetry/sdk-trace');
  const r = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { registerInstrumentations } =
    require('@opentelemetry/instrumentation') as typeof import('@opentelemetry/instrumentation');

  const logLevel = env.OTEL_LOG_LEVEL?.trim();
  if (logLevel)
    api.diag.setLogger(new api.DiagConsoleLogger(), { logLevel: core.diagLogLevelFromString(logLevel) });

  const supported = otlpProtocol(env);
  const protocol = supported ?? 'http/json';
  if (!supported)
    api.diag.warn(`${askedProtocol(env)?.name}: not one of http/json, http/protobuf, grpc; using http/json`);
  const exporterName = env.OTEL_TRACES_EXPORTER?.trim();
  if (exporterName && exporterName !== 'otlp')
    api.diag.warn(`OTEL_TRACES_EXPORTER: "${exporterName}" is not supported (otlp, none); using otlp`);

  registerInstrumentations({ instrumentations: options.instrumentations });
  let contextManager = options.contextManager;
  if (!contextManager) {
    const { AsyncLocalStorageContextManager } =
      require('@opentelemetry/context-async-hooks') as typeof import('@opentelemetry/context-async-hooks');
    contextManager = new AsyncLocalStorageContextManager();
  }
  api.context.setGlobalContextManager(contextManager.enable());
  const propagator = propagatorFrom(env, api);
  if (propagator) api.propagation.setGlobalPropagator(propagator);

  let resource = r.defaultResource().merge(r.detectResources({ detectors: detectorsFrom(env, api) }));
  if (options.serviceName)
    resource = resource.merge(r.resourceFromAttributes({ 'service.name': options.serviceName }));

  const provider = new t.TracerProvider({
    sampler: options.sampler,
    idGenerator: options.idGenerator,
    resource,
    spanLimits: spanLimitsFrom(env, options.spanLimits),
    spanProcessors: [
      new t.BatchSpanProcessor({
        exporter: exporterFor(protocol),
        ...batchSettings(env),
      }),
    ],
  });
  api.trace.setGlobalTracerProvider(provider);
  // As the Node SDK's shutdown: the queued spans exported and the provider stopped; the patches and the API's
  // registrations stay (a process stops tracing only as it exits).
  return { protocol, shutdown: () => provider.shutdown() };
}
