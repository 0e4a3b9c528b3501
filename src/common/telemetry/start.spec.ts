import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace';
import { leftOutRequests, rootShare, samplerFromEnv, tracingRequested } from './start';

/** What docker/compose.yaml passes for each OTEL_* variable when the host sets none: an empty value. */
function composeDefaults(): Record<string, string> {
  const compose = readFileSync(join(__dirname, '../../../docker/compose.yaml'), 'utf8');
  return Object.fromEntries([...compose.matchAll(/^ +(OTEL_[A-Z_]+): \$\{\1:-\}$/gm)].map((m) => [m[1], '']));
}

describe('tracing from the environment', () => {
  it('stays off with the empty values compose passes, and turns on with an endpoint', () => {
    const empty = composeDefaults();
    expect(Object.keys(empty)).toEqual(
      expect.arrayContaining([
        'OTEL_EXPORTER_OTLP_ENDPOINT',
        'OTEL_TRACES_SAMPLER_ARG',
        'OTEL_CAPTURE_CONTENT',
      ]),
    );
    expect(tracingRequested(empty)).toBe(false);
    expect(tracingRequested({ ...empty, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4318' })).toBe(true);
    expect(
      tracingRequested({ ...empty, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://otel:4318/v1/traces' }),
    ).toBe(true);
    expect(
      tracingRequested({
        ...empty,
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4318',
        OTEL_SDK_DISABLED: 'true',
      }),
    ).toBe(false);
  });

  it('takes an empty sampler and ratio as unset: parent-based always on, a ratio sampler keeping every trace', () => {
    const empty = composeDefaults();
    expect(samplerFromEnv(empty).toString()).toBe(samplerFromEnv({}).toString());
    expect(samplerFromEnv({}).toString()).toMatch(/^ParentBased\{root=AlwaysOnSampler/);
    const ratio = { ...empty, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio' };
    expect(samplerFromEnv(ratio).toString()).toMatch(/root=TraceIdRatioBased\{1\}/);
    expect(samplerFromEnv({ ...ratio, OTEL_TRACES_SAMPLER_ARG: ' 0.25 ' }).toString()).toMatch(
      /root=TraceIdRatioBased\{0\.25\}/,
    );
    expect(samplerFromEnv({ ...ratio, OTEL_TRACES_SAMPLER_ARG: '0' }).toString()).toMatch(
      /root=TraceIdRatioBased\{0\}/,
    );
  });

  it('draws a request that starts a trace against the share of new traces kept, before it is instrumented', () => {
    expect(rootShare({})).toBe(1);
    expect(rootShare({ OTEL_TRACES_SAMPLER: 'parentbased_always_on' })).toBe(1);
    expect(rootShare({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' })).toBe(0);
    expect(
      rootShare({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }),
    ).toBe(0.1);
    expect(rootShare({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '' })).toBe(
      1,
    );
    // A ratio sampler that is not parent-based decides every span alone: requests are not drawn first.
    expect(rootShare({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' })).toBe(1);

    const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
    const starting = request({});
    const continuing = request({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
    expect(leftOutRequests(1)(starting)).toBe(false);
    expect(leftOutRequests(0)(starting)).toBe(true);
    // One that continues a caller's trace follows the caller's decision (the parent-based sampler's).
    expect(leftOutRequests(0)(continuing)).toBe(false);
    const tenth = leftOutRequests(0.1);
    const kept = Array.from({ length: 20_000 }, () => tenth(starting)).filter((out) => !out).length;
    expect(kept).toBeGreaterThan(1_600);
    expect(kept).toBeLessThan(2_400);
  });

  it('keeps the request spans that won the draw, and draws every other new trace against the ratio', () => {
    const env = { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' };
    const sampler = samplerFromEnv(env, true);
    expect(sampler.toString()).toMatch(/root=DrawnRequestsKept\{TraceIdRatioBased\{0\.1\}\}/);
    const traceIds = Array.from({ length: 5_000 }, () => randomBytes(16).toString('hex'));
    const sampled = (kind: SpanKind, attributes: Record<string, string>) =>
      traceIds.filter(
        (id) =>
          sampler.shouldSample(ROOT_CONTEXT, id, 'x', kind, attributes, []).decision ===
          SamplingDecision.RECORD_AND_SAMPLED,
      ).length;
    // Drawn again, only one request in a hundred would be traced.
    expect(sampled(SpanKind.SERVER, { 'http.request.method': 'POST' })).toBe(5_000);
    const calls = sampled(SpanKind.INTERNAL, {});
    expect(calls).toBeGreaterThan(350);
    expect(calls).toBeLessThan(650);
    // Without the draw (the HTTP instrumentation left out) the ratio decides requests too.
    expect(samplerFromEnv(env).toString()).toMatch(/root=TraceIdRatioBased\{0\.1\}/);
  });
});
