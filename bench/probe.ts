/**
 * Preloaded (`-r`) into a benchmark's server processes when BENCH_PROBE_DIR is set: counts every statement sent to
 * PostgreSQL through `pg` (by its text, parameters aside) and every command sent to Redis through `ioredis` (by
 * name; Bull's own connections included), and reads the process's CPU time and event-loop delay. On SIGUSR2 it
 * writes a snapshot to `BENCH_PROBE_DIR/<pid>-<n>.json`, so the benchmark diffs two snapshots around a phase.
 * BENCH_PROFILE_SNAPSHOTS=a-b (e.g. `1-2`, the saturation turns of bench:calls) profiles the CPU from snapshot a to
 * snapshot b into `BENCH_PROFILE_DIR` (default: the probe directory) as `<pid>-<a>-<b>.cpuprofile`: one phase's
 * profile, without the start-up and the other phases a whole-process `--cpu-prof` mixes in.
 * BENCH_PROBE_COLLECT=1 collects the whole heap before each snapshot (`collected`).
 */
import * as fs from 'node:fs';
import { Session } from 'node:inspector';
import * as http from 'node:http';
import * as https from 'node:https';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { AsyncLocalStorage } from 'node:async_hooks';
import { constants, monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import { Client } from 'pg';
import Redis from 'ioredis';

export interface ProbeSnapshot {
  pid: number;
  cpuMs: number;
  /**
   * Of `cpuMs`, the main thread's (JavaScript, the event loop, the collector's pauses); the rest is V8's helper
   * threads (concurrent marking and sweeping, compiling in the background) and libuv's pool. Linux only.
   */
  mainCpuMs?: number;
  statements: Record<string, number>;
  redis: Record<string, number>;
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  /** Collections of the old generation (major GCs) since the process started. */
  majorGcs: number;
  /**
   * BENCH_PROBE_COLLECT=1: the heap in use (MiB) just after the collection of the whole heap the snapshot began with.
   * A window between two such snapshots starts with no garbage left over from before it and pays for collecting all
   * of its own; without them a replica carries the old generation's limit its start-up set into the window (a
   * replica that set a high one, say under start-up's allocation rate, may not collect its old generation for
   * minutes, then does so every few seconds).
   */
  collected?: number;
  /** BENCH_TRACE=timeline: what the process waited on since the last snapshot, on a clock shared by processes. */
  timeline?: TimelineEvent[];
}

/** One wait: `kind` sql/redis/fetch/http (an incoming request, start to finish), `from`/`to` in ms since the epoch. */
export interface TimelineEvent {
  pid: number;
  kind: 'sql' | 'redis' | 'fetch' | 'http';
  what: string;
  /** Sent while serving an incoming request (its async context), not by background work. */
  inRequest: boolean;
  from: number;
  to: number;
}

/** Milliseconds since the epoch with sub-millisecond precision, comparable between processes of one machine. */
export const clock = (): number => performance.timeOrigin + performance.now();

const dir = process.env.BENCH_PROBE_DIR;
if (dir) {
  const statements = new Map<string, number>();
  const redis = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  /** BENCH_TRACE=text: statements containing it are counted per calling function (the application's frames). */
  const trace = process.env.BENCH_TRACE === 'timeline' ? undefined : process.env.BENCH_TRACE;
  /** BENCH_TRACE=timeline: every statement, Redis command, outgoing fetch and incoming request, timed. */
  let timeline: TimelineEvent[] | undefined = process.env.BENCH_TRACE === 'timeline' ? [] : undefined;
  const requests = new AsyncLocalStorage<boolean>();
  const record = (kind: TimelineEvent['kind'], what: string, from: number, inRequest?: boolean) => {
    if (timeline && timeline.length < 500_000)
      timeline.push({
        pid: process.pid,
        kind,
        what,
        from,
        to: clock(),
        inRequest: inRequest ?? requests.getStore() === true,
      });
  };
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
    if (!timeline) return query.apply(this, args);
    const from = clock();
    const inRequest = requests.getStore() === true;
    const done = () => record('sql', key, from, inRequest);
    const last = args.length - 1;
    if (typeof args[last] === 'function') {
      const cb = args[last] as (...r: unknown[]) => unknown;
      args[last] = (...r: unknown[]) => {
        done();
        return cb(...r);
      };
      return query.apply(this, args);
    }
    const out = query.apply(this, args) as { then?: (a: () => void, b: () => void) => unknown } | undefined;
    if (out && typeof out.then === 'function') out.then(done, done);
    return out;
  } as typeof Client.prototype.query;

  const send = Redis.prototype.sendCommand;
  Redis.prototype.sendCommand = function (this: Redis, command, ...rest) {
    const name = (command as { name: string }).name;
    bump(redis, name);
    if (timeline) {
      const from = clock();
      const inRequest = requests.getStore() === true;
      const done = () => record('redis', name, from, inRequest);
      (command as unknown as { promise: Promise<unknown> }).promise.then(done, done);
    }
    return send.call(this, command, ...rest);
  } as typeof Redis.prototype.sendCommand;

  if (timeline) {
    const fetchOriginal = globalThis.fetch;
    globalThis.fetch = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      const from = clock();
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      try {
        return await fetchOriginal(input, init);
      } finally {
        record('fetch', `${init?.method ?? 'GET'} ${new URL(url).pathname} (to headers)`, from);
      }
    }) as typeof fetch;
    // The modules themselves (a namespace import's properties are read-only).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const libs = [require('node:http'), require('node:https')] as { request: typeof http.request }[];
    for (const lib of libs) {
      const request = lib.request;
      lib.request = function (...args: unknown[]) {
        const from = clock();
        const inRequest = requests.getStore() === true;
        const req = (request as (...a: unknown[]) => http.ClientRequest).apply(lib, args);
        req.once('response', () =>
          record('fetch', `${req.method} ${req.path} (to headers)`, from, inRequest),
        );
        return req;
      } as typeof http.request;
    }
    for (const proto of [http.Server.prototype, https.Server.prototype]) {
      const emit = proto.emit;
      proto.emit = function (this: http.Server, event: string, ...rest: unknown[]) {
        if (event === 'request') {
          const [req, res] = rest as [http.IncomingMessage, http.ServerResponse];
          const from = clock();
          res.once('finish', () => record('http', `${req.method} ${req.url}`, from, true));
          return requests.run(true, () =>
            (emit as (...a: unknown[]) => boolean).apply(this, [event, ...rest]),
          );
        }
        return (emit as (...a: unknown[]) => boolean).apply(this, [event, ...rest]);
      } as typeof proto.emit;
    }
  }

  let collect: (() => void) | undefined;
  /** The collections made here, not counted in `majorGcs` (the observer hears of each one after its snapshot). */
  let forced = 0;
  if (process.env.BENCH_PROBE_COLLECT === '1') {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    collect = () => {
      gc();
      forced += 1;
    };
  }
  const loop = monitorEventLoopDelay({ resolution: 10 });
  let majorGcs = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) majorGcs += 1;
    }
  }).observe({ entryTypes: ['gc'] });
  loop.enable();
  let n = 0;
  const [profileFrom, profileTo] = (process.env.BENCH_PROFILE_SNAPSHOTS ?? '').split('-').map(Number);
  let profiler: Session | null = null;
  const profileAt = (at: number) => {
    if (at === profileFrom && !profiler) {
      profiler = new Session();
      profiler.connect();
      profiler.post('Profiler.enable', () => profiler?.post('Profiler.start'));
    } else if (at === profileTo && profiler) {
      const session = profiler;
      profiler = null;
      session.post('Profiler.stop', (err, result) => {
        if (!err)
          fs.writeFileSync(
            path.join(
              process.env.BENCH_PROFILE_DIR ?? dir,
              `${process.pid}-${profileFrom}-${profileTo}.cpuprofile`,
            ),
            JSON.stringify(result.profile),
          );
        session.disconnect();
      });
    }
  };
  /** The main thread's CPU (ms) from /proc (its utime and stime, in clock ticks of 10 ms), if there is one. */
  const mainCpu = (): number | undefined => {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      return undefined;
    }
  };
  process.on('SIGUSR2', () => {
    collect?.();
    const collected = collect ? process.memoryUsage().heapUsed / 2 ** 20 : undefined;
    const cpu = process.cpuUsage();
    const snap: ProbeSnapshot = {
      pid: process.pid,
      cpuMs: (cpu.user + cpu.system) / 1000,
      mainCpuMs: mainCpu(),
      statements: Object.fromEntries(statements),
      redis: Object.fromEntries(redis),
      loopDelayP99Ms: loop.percentile(99) / 1e6,
      loopDelayMaxMs: loop.max / 1e6,
      majorGcs: majorGcs - forced,
      collected,
      ...(timeline ? { timeline } : {}),
    };
    if (timeline) timeline = [];
    loop.reset();
    n += 1;
    // Written whole under another name, then renamed: the bench reads a snapshot as soon as it is there.
    const file = path.join(dir, `${process.pid}-${n}.json`);
    fs.writeFileSync(`${file}.part`, JSON.stringify(snap));
    fs.renameSync(`${file}.part`, file);
    profileAt(n);
  });
}
