/**
 * Preloaded (`-r`) into a benchmark's server processes when BENCH_PROBE_DIR is set: counts every statement sent to
 * PostgreSQL through `pg` (by its text, parameters aside) and every command sent to Redis through `ioredis` (by
 * name; Bull's own connections included), and reads the process's CPU time and event-loop delay. On SIGUSR2 it
 * writes a snapshot to `BENCH_PROBE_DIR/<pid>-<n>.json`, so the benchmark diffs two snapshots around a phase.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Client } from 'pg';
import Redis from 'ioredis';

export interface ProbeSnapshot {
  pid: number;
  cpuMs: number;
  statements: Record<string, number>;
  redis: Record<string, number>;
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
}

const dir = process.env.BENCH_PROBE_DIR;
if (dir) {
  const statements = new Map<string, number>();
  const redis = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  /** BENCH_TRACE=text: statements containing it are counted per calling function (the application's frames). */
  const trace = process.env.BENCH_TRACE;
  const callers = () =>
    (new Error().stack ?? '')
      .split('\n')
      .filter((l) => l.includes('/src/modules/') || l.includes('/src/common/'))
      .slice(0, 4)
      .map((l) =>
        l
          .trim()
          .replace(/^at /, '')
          .replace(/ \(.*\/src\//, ' (')
          .replace(/:\d+\)$/, ')'),
      )
      .join(' < ');

  const query = Client.prototype.query as (...args: unknown[]) => unknown;
  Client.prototype.query = function (this: Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string; name?: string };
    const text = typeof first === 'string' ? first : (first?.text ?? first?.name ?? '?');
    const key = text.replace(/\s+/g, ' ').trim().slice(0, 160);
    bump(statements, trace && key.includes(trace) ? `${key} @ ${callers()}` : key);
    return query.apply(this, args);
  } as typeof Client.prototype.query;

  const send = Redis.prototype.sendCommand;
  Redis.prototype.sendCommand = function (this: Redis, command, ...rest) {
    bump(redis, (command as { name: string }).name);
    return send.call(this, command, ...rest);
  } as typeof Redis.prototype.sendCommand;

  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  let n = 0;
  process.on('SIGUSR2', () => {
    const cpu = process.cpuUsage();
    const snap: ProbeSnapshot = {
      pid: process.pid,
      cpuMs: (cpu.user + cpu.system) / 1000,
      statements: Object.fromEntries(statements),
      redis: Object.fromEntries(redis),
      loopDelayP99Ms: loop.percentile(99) / 1e6,
      loopDelayMaxMs: loop.max / 1e6,
    };
    loop.reset();
    n += 1;
    fs.writeFileSync(path.join(dir, `${process.pid}-${n}.json`), JSON.stringify(snap));
  });
}
