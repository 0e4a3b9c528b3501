import * as api from '@opentelemetry/api';
import { isTracingSuppressed } from '@opentelemetry/core';
import {
  AlwaysOnSampler,
  InMemorySpanExporter,
  ParentBasedSampler,
  RandomIdGenerator,
  Sampler,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { callIds } from '../../src/common/telemetry/call-trace';
import { requestContextManager } from '../../src/common/telemetry/request-context';
import {
  activateTracing,
  deactivateTracing,
  type CallTraces,
} from '../../src/common/telemetry/tracing-state';

/** Tracing as start.ts turns it on, in a unit test: the service's context manager, spans kept in memory. */
export interface TestTracing {
  exporter: InMemorySpanExporter;
  provider: TracerProvider;
  /** Turns it all off again (afterAll). */
  stop(): void;
}

/**
 * Registers the service's context manager and a tracer provider exporting to memory (parent-based, every new trace
 * kept, unless `sampler` says otherwise), and activates the span helpers (every call sampled unless `calls` says).
 */
export function startTestTracing(
  options: { sampler?: Sampler; calls?: Partial<CallTraces> } = {},
): TestTracing {
  const exporter = new InMemorySpanExporter();
  api.context.setGlobalContextManager(requestContextManager());
  const provider = new TracerProvider({
    sampler: options.sampler ?? new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  api.trace.setGlobalTracerProvider(provider);
  activateTracing({
    api,
    ids: new RandomIdGenerator(),
    calls: { ids: callIds, sampled: () => true, startCallSpan: (_id, start) => start(), ...options.calls },
    capture: false,
    parentBased: true,
    suppressed: isTracingSuppressed,
  });
  return {
    exporter,
    provider,
    stop: () => {
      deactivateTracing();
      api.trace.disable();
      api.propagation.disable();
      api.context.disable();
    },
  };
}
