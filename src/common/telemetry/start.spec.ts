import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { samplerFromEnv, tracingRequested } from './start';

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
});
