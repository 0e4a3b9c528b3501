import { OtlpReceiver } from '../test/support/otlp-receiver';
import type { ProbeSnapshot } from './probe';

/** What one pass of a benchmark measured, to set the pass with tracing on beside the one with it off. */
export interface PassFigures {
  /** Latency p99s (ms), by what they measure. */
  p99: Record<string, number>;
  /** The replicas' CPU per unit of work (ms), by unit (`turn (saturation)`, `inbound message`, ...). */
  cpuMs: Record<string, number>;
  /** Of `cpuMs`, the replicas' main threads' (the rest is V8's helper threads and libuv's pool), when known. */
  mainCpuMs?: Record<string, number>;
  /** The replicas' collections of the old generation in the window measured (see `gcBetween`). */
  majorGcs?: number;
  /** The replicas' heap in use (MiB, summed) once the whole heap was collected at the window's end (`heapAfter`). */
  heapMb?: number;
}

/**
 * The replicas' major GCs between two probe snapshots. A replica that starts no collection of its old generation in
 * the window measured spends less CPU there than it will later: tracing's few megabytes more heap bring the first
 * one sooner, so a short window charges it to tracing. Compare over a window in which every replica collects it.
 */
export function gcBetween(from: ProbeSnapshot[], to: ProbeSnapshot[]): number {
  const major = (list: ProbeSnapshot[]) => list.reduce((t, s) => t + (s.majorGcs ?? 0), 0);
  return major(to) - major(from);
}

/** The replicas' heap in use (MiB) just after the collection a snapshot began with (BENCH_PROBE_COLLECT), summed. */
export function heapAfter(to: ProbeSnapshot[]): number | undefined {
  return to.every((s) => s.collected !== undefined)
    ? to.reduce((t, s) => t + (s.collected ?? 0), 0)
    : undefined;
}

/** The replicas' CPU (ms) between two probe snapshots, per unit of work (`main`: their main threads' only). */
export function cpuPerUnit(from: ProbeSnapshot[], to: ProbeSnapshot[], units: number, main = false): number {
  const cpu = (list: ProbeSnapshot[]) =>
    list.reduce((t, s) => t + (main ? (s.mainCpuMs ?? NaN) : s.cpuMs), 0);
  return (cpu(to) - cpu(from)) / units;
}

/** Where a pass runs: alone, or beside the other pass of its round (BENCH_TRACING_SIDE_BY_SIDE). */
export interface PassSide {
  /** Sets the pass's database, Redis prefix and files apart from the pass beside it ('' when alone). */
  tag: string;
  /** Resolves once the pass beside it has reached the same phase too (at once when alone). */
  reached(phase: string): Promise<void>;
}

const ALONE: PassSide = { tag: '', reached: async () => undefined };

/** Two passes side by side, each waiting at each phase until the other is there too. */
function sideBySide(): [PassSide, PassSide] {
  const phases = new Map<string, { arrived: number; release: () => void; all: Promise<void> }>();
  const reached = (phase: string) => {
    let p = phases.get(phase);
    if (!p) {
      let release: () => void = () => undefined;
      const all = new Promise<void>((resolve) => (release = resolve));
      p = { arrived: 0, release, all };
      phases.set(phase, p);
    }
    p.arrived += 1;
    if (p.arrived === 2) p.release();
    return p.all;
  };
  return [
    { tag: '_off', reached },
    { tag: '_on', reached },
  ];
}

/**
 * Runs a benchmark's pass with tracing off and the same pass with its replicas tracing (unless BENCH_TRACING=off),
 * every span sampled and exported over OTLP/HTTP to a local receiver (`pass` adds the variables it is given to the
 * replicas' environment), and prints what tracing costs: each p99 off → on, and the replicas' CPU per unit of work
 * off → on beside the goal (under 5 % more). BENCH_TRACING_RATIO (e.g. 0.1) samples that share of traces instead
 * (`parentbased_traceidratio`, the usual production setting).
 *
 * One pair of passes run one after the other differs by ±10 % and more with tracing off in both (a fresh tenant,
 * Postgres' own work, the machine), so BENCH_TRACING_ROUNDS (default 2) runs the passes in ABBA order (off, on, on,
 * off, …: drift over the run weighs on both alike) and compares the means; each pass's figures are printed too.
 * BENCH_TRACING_SIDE_BY_SIDE=1 runs each round's two passes at the same time instead, each on replicas, a database and
 * a Redis prefix of its own, meeting at each phase: what the machine does meanwhile weighs on both alike.
 * Each pass's major GCs are printed too. The replicas collect their whole heap as each window starts and ends
 * (BENCH_PROBE_COLLECT=1 unless set otherwise, see bench/probe.ts): without that, a replica whose start-up set its
 * old generation's limit high skips the collections the other one makes, and the window charges them to whichever
 * side made them. It must still be long enough for every replica to collect its old generation (`gcBetween`), e.g.
 * BENCH_MESSAGES=4000 at BENCH_RATE=25 for `bench:messaging`. BENCH_DETAIL=1 lists every exported span name, not
 * the eight most frequent.
 */
export async function withTracingCost(
  pass: (tracing: Record<string, string>, side: PassSide) => Promise<PassFigures>,
): Promise<void> {
  if (process.env.BENCH_TRACING === 'off') {
    await pass({}, ALONE);
    return;
  }
  process.env.BENCH_PROBE_COLLECT ??= '1';
  const rounds = Math.max(1, Number(process.env.BENCH_TRACING_ROUNDS ?? 2) || 2);
  const together = process.env.BENCH_TRACING_SIDE_BY_SIDE === '1';
  const receiver = await OtlpReceiver.start({ keep: false });
  const ratio = process.env.BENCH_TRACING_RATIO;
  const sampler: Record<string, string> = ratio
    ? { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: ratio }
    : {};
  const traced = {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_SERVICE_NAME: 'agent-platform-bench',
    ...sampler,
  };
  const onLabel = `on (OTLP/HTTP to a local receiver, ${ratio ? `a ${ratio} share of traces` : 'every span'} sampled)`;
  const offs: PassFigures[] = [];
  const ons: PassFigures[] = [];
  try {
    if (together) {
      for (let r = 0; r < rounds; r++) {
        process.stdout.write(`\nround ${r + 1} of ${rounds}: tracing off and ${onLabel}, side by side\n`);
        const [off, beside] = sideBySide();
        const [a, b] = await Promise.all([pass({}, off), pass(traced, beside)]);
        offs.push(a);
        ons.push(b);
      }
    } else {
      const order: boolean[] = [];
      for (let r = 0; r < rounds; r++) order.push(...(r % 2 === 0 ? [false, true] : [true, false]));
      for (const [i, tracing] of order.entries()) {
        process.stdout.write(`\npass ${i + 1} of ${order.length}: tracing ${tracing ? onLabel : 'off'}\n`);
        if (tracing) ons.push(await pass(traced, ALONE));
        else offs.push(await pass({}, ALONE));
      }
    }
  } finally {
    await receiver.close();
  }
  const mean = (list: number[]) => list.reduce((t, v) => t + v, 0) / list.length;
  const off = meanFigures(offs, mean);
  const on = meanFigures(ons, mean);
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  /** A CPU figure split into the main threads' and the helper threads' part, off → on (when the probe read it). */
  const threads = (k: string) => {
    const main = (f: PassFigures) => f.mainCpuMs?.[k];
    if (![...offs, ...ons].every((f) => Number.isFinite(main(f)))) return [];
    const part = (label: string, pick: (f: PassFigures) => number) => {
      const [a, b] = [mean(offs.map(pick)), mean(ons.map(pick))];
      return `  ${`  ${label}:`.padEnd(34)} ${a.toFixed(2)} ms -> ${b.toFixed(2)} ms (${b >= a ? '+' : ''}${(b - a).toFixed(2)} ms)`;
    };
    return [
      part('main threads', (f) => main(f)!),
      part("V8's and libuv's helper threads", (f) => f.cpuMs[k] - main(f)!),
    ];
  };
  /** A line of each pass's figure (off; on), when the benchmark gives it. */
  const perPass = (label: string, pick: (f: PassFigures) => string | undefined) =>
    pick(offs[0]) === undefined
      ? []
      : [
          `  ${label.padEnd(34)} ${[offs, ons].map((l) => l.map((f) => pick(f) ?? '?').join(', ')).join('; ')}`,
        ];
  process.stdout.write(
    [
      '',
      `tracing cost (means of ${rounds} passes with tracing off and ${rounds} with it on, ${together ? 'each pair side by side' : 'in ABBA order'}, in this run):`,
      ...Object.keys(off.p99).map((k) => {
        const delta = on.p99[k] - off.p99[k];
        return `  ${`${k} p99:`.padEnd(34)} ${ms(off.p99[k])} -> ${ms(on.p99[k])} (${delta >= 0 ? '+' : ''}${ms(delta)})`;
      }),
      ...Object.keys(off.cpuMs).flatMap((k) => {
        const more = (on.cpuMs[k] / off.cpuMs[k] - 1) * 100;
        const each = (list: PassFigures[]) => list.map((f) => f.cpuMs[k].toFixed(2)).join(', ');
        return [
          `  ${`replica CPU per ${k}:`.padEnd(34)} ${off.cpuMs[k].toFixed(2)} ms -> ${on.cpuMs[k].toFixed(2)} ms (${more >= 0 ? '+' : ''}${more.toFixed(1)} %); goal < 5 %: ${more < 5 ? 'met' : 'NOT met'}`,
          `  ${'  each pass (off; on):'.padEnd(34)} ${each(offs)}; ${each(ons)} ms`,
          ...threads(k),
        ];
      }),
      ...perPass("replicas' major GCs (off; on):", (f) => f.majorGcs?.toString()),
      ...perPass('heap after full GC, MiB (off; on):', (f) => f.heapMb?.toFixed(1)),
      `  spans exported:                    ${receiver.received} (${(receiver.bytes / 2 ** 20).toFixed(1)} MiB of OTLP JSON)`,
      `  ${'most exported spans, by name:'.padEnd(34)} ${[...receiver.names]
        .sort((a, b) => b[1] - a[1])
        .slice(0, process.env.BENCH_DETAIL ? undefined : 8)
        .map(([name, n]) => `${name} ${n}`)
        .join(', ')}`,
    ].join('\n') + '\n',
  );
}

function meanFigures(list: PassFigures[], mean: (l: number[]) => number): PassFigures {
  const p99: Record<string, number> = {};
  for (const k of Object.keys(list[0].p99)) p99[k] = mean(list.map((f) => f.p99[k]));
  const cpuMs: Record<string, number> = {};
  for (const k of Object.keys(list[0].cpuMs)) cpuMs[k] = mean(list.map((f) => f.cpuMs[k]));
  return { p99, cpuMs };
}
