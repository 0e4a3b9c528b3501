import * as api from '@opentelemetry/api';
import {
  AlwaysOnSampler,
  RandomIdGenerator,
  Sampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace';
import { CallIdGenerator, callIds, callTraces } from './call-trace';

describe('call traces', () => {
  const CALL = '5f0c6a2e-8d1b-4c3a-9e7f-0a1b2c3d4e5f';

  it("names a call's trace by its uuid and asks the sampler once per call", () => {
    const asked: string[] = [];
    const ratio: Sampler = new TraceIdRatioBasedSampler(0.5);
    const counting: Sampler = {
      shouldSample: (...args) => {
        asked.push(args[1]);
        return ratio.shouldSample(...args);
      },
      toString: () => 'counting',
    };
    const traces = callTraces(new CallIdGenerator(new RandomIdGenerator()), counting, api);
    const { traceId } = traces.ids(CALL);
    expect(traceId).toBe(CALL.replace(/-/g, ''));
    const expected =
      ratio.shouldSample(api.ROOT_CONTEXT, traceId, 'call', api.SpanKind.INTERNAL, {}, []).decision ===
      SamplingDecision.RECORD_AND_SAMPLED;
    expect([traces.sampled(traceId), traces.sampled(traceId), traces.sampled(traceId)]).toEqual([
      expected,
      expected,
      expected,
    ]);
    expect(asked).toEqual([traceId]);
    const other = callIds('0d9c8b7a-6f5e-4d3c-8b2a-190817161514').traceId;
    traces.sampled(other);
    expect(asked).toEqual([traceId, other]);
  });

  it('gives the `call` span the call ids, and random ids otherwise', () => {
    const ids = new CallIdGenerator(new RandomIdGenerator());
    const traces = callTraces(ids, new AlwaysOnSampler(), api);
    const seen = traces.startCallSpan(CALL, () => {
      const span = { traceId: ids.generateTraceId(), spanId: ids.generateSpanId() };
      return span as unknown as api.Span;
    }) as unknown as { traceId: string; spanId: string };
    expect(seen).toEqual(callIds(CALL));
    expect(ids.generateTraceId()).not.toBe(seen.traceId);
  });
});
