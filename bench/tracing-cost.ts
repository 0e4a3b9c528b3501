import { OtlpReceiver } from '../test/support/otlp-receiver';
import type { ProbeSnapshot } from './probe';

/** What one pass of a benchmark measured, to set the pass with tracing on beside the one with it off. */
export interface PassFigures {
  /** Latency p99s (ms), by what they measure. */
  p99: Record<string, number>;
  /** The replicas' CPU per unit of work (ms), and the unit. */
  cpuPerUnitMs: number;
  unit: string;
}

/** The replicas' CPU (ms) between two probe snapshots, per unit of work. */
export function cpuPerUnit(from: ProbeSnapshot[], to: ProbeSnapshot[], units: number): number {
  const cpu = (list: ProbeSnapshot[]) => list.reduce((t, s) => t + s.cpuMs, 0);
  return (cpu(to) - cpu(from)) / units;
}

/**
 * Runs a benchmark's pass with tracing off, then (unless BENCH_TRACING=off) the same pass with its replicas tracing,
 * every span sampled and exported over OTLP/HTTP to a local receiver (`pass` adds the variables it is given to the
 * replicas' environment), and prints what tracing costs: each p99 off → on, and the replicas' CPU per unit of work
 * off → on beside the goal (under 5 % more). BENCH_TRACING_RATIO (e.g. 0.1) samples that share of traces instead
 * (`parentbased_traceidratio`, the usual production setting).
 */
export async function withTracingCost(
  pass: (tracing: Record<string, string>) => Promise<PassFigures>,
): Promise<void> {
  const off = await pass({});
  if (process.env.BENCH_TRACING === 'off') return;
  const receiver = await OtlpReceiver.start({ keep: false });
  let on: PassFigures;
  try {
    const ratio = process.env.BENCH_TRACING_RATIO;
    const sampler: Record<string, string> = ratio
      ? { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: ratio }
      : {};
    process.stdout.write(
      `\nthe same pass with tracing on (OTLP/HTTP to a local receiver, ${ratio ? `a ${ratio} share of traces` : 'every span'} sampled):\n`,
    );
    on = await pass({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: 'agent-platform-bench',
      ...sampler,
    });
  } finally {
    await receiver.close();
  }
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  const more = (on.cpuPerUnitMs / off.cpuPerUnitMs - 1) * 100;
  process.stdout.write(
    [
      '',
      'tracing cost (the pass with tracing off, then on, in this run):',
      ...Object.keys(off.p99).map((k) => {
        const delta = on.p99[k] - off.p99[k];
        return `  ${`${k} p99:`.padEnd(34)} ${ms(off.p99[k])} -> ${ms(on.p99[k])} (${delta >= 0 ? '+' : ''}${ms(delta)})`;
      }),
      `  ${`replica CPU per ${off.unit}:`.padEnd(34)} ${ms(off.cpuPerUnitMs)} -> ${ms(on.cpuPerUnitMs)} (${more >= 0 ? '+' : ''}${more.toFixed(1)} %); goal < 5 %: ${more < 5 ? 'met' : 'NOT met'}`,
      `  spans exported:                    ${receiver.received} (${(receiver.bytes / 2 ** 20).toFixed(1)} MiB of OTLP JSON)`,
    ].join('\n') + '\n',
  );
}
