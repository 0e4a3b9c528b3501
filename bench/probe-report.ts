import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ProbeSnapshot } from './probe';

/** One probe snapshot of each replica (bench/probe.ts, preloaded with BENCH_PROBE_DIR set), asked for with SIGUSR2. */
export async function probe(children: ChildProcess[], dir: string): Promise<ProbeSnapshot[]> {
  const before = new Set(fs.readdirSync(dir));
  for (const c of children) c.kill('SIGUSR2');
  for (let i = 0; i < 500; i += 1) {
    const fresh = fs.readdirSync(dir).filter((f) => f.endsWith('.json') && !before.has(f));
    if (fresh.length === children.length) {
      await new Promise((r) => setTimeout(r, 20));
      return fresh.map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as ProbeSnapshot);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the replicas wrote no probe snapshot');
}

/** What the replicas spent between two snapshots, per unit of work (each counter listed with BENCH_DETAIL). */
export function spent(from: ProbeSnapshot[], to: ProbeSnapshot[], units: number, label: string): string {
  const sum = (pick: (s: ProbeSnapshot) => Record<string, number>) => {
    const out = new Map<string, number>();
    for (const s of to) for (const [k, v] of Object.entries(pick(s))) out.set(k, (out.get(k) ?? 0) + v);
    for (const s of from) for (const [k, v] of Object.entries(pick(s))) out.set(k, (out.get(k) ?? 0) - v);
    return [...out].filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]);
  };
  const cpu = to.reduce((t, s) => t + s.cpuMs, 0) - from.reduce((t, s) => t + s.cpuMs, 0);
  const statements = sum((s) => s.statements);
  const redis = sum((s) => s.redis);
  const total = (l: [string, number][]) => l.reduce((t, [, v]) => t + v, 0);
  const per = (v: number) => (v / units).toFixed(1);
  const lines = [
    `${label}: replica CPU ${per(cpu)} ms, SQL statements ${per(total(statements))}, Redis commands ${per(total(redis))}; event-loop delay p99 ${Math.max(...to.map((s) => s.loopDelayP99Ms)).toFixed(1)} ms, max ${Math.max(...to.map((s) => s.loopDelayMaxMs)).toFixed(1)} ms`,
  ];
  if (process.env.BENCH_DETAIL) {
    for (const [k, v] of statements) lines.push(`    sql   ${per(v).padStart(6)}  ${k}`);
    for (const [k, v] of redis) lines.push(`    redis ${per(v).padStart(6)}  ${k}`);
  }
  return lines.join('\n');
}
