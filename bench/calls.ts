import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { migrate } from '@/database/data-source';
import { dropDatabase } from '../test/support/isolated-database';
import { LlmServer } from '../test/support/llm-server';
import { performance } from 'node:perf_hooks';
import type { TimelineEvent } from './probe';
import { probe, spent } from './probe-report';
import { seedBenchTenant } from './seed-tenant';
import { startServer, stopServer } from './replicas';
import { percentile, runBench } from './stats';
import { cpuPerUnit, gcBetween, heapAfter, PassFigures, PassSide, withTracingCost } from './tracing-cost';

/**
 * `npm run bench:calls`: two API replicas (compiled, each with its workers) share PostgreSQL and Redis; 50 sandbox
 * calls are placed at once over both, against a local model that answers in a fixed 50 ms.
 *
 * - Live calls (the goals): the 50 calls run side by side the way live calls do, their customers speaking at a
 *   human pace: each call takes 10 customer turns (`simulate say`) and 5 live actions (`say`, posted to the replica
 *   that does not own the call) in a seeded random order, each step 1 to 2 s (BENCH_GAP_MS, jittered, seeded by
 *   BENCH_SEED) after the previous step's answer. Prints the turn overhead (latency minus the model's 50 ms) and the
 *   action round trip (answered once the owner has performed it), p50/p99, beside the goals.
 * - Saturation (throughput, not a goal): the same calls then send their turns back to back, 50 always in flight,
 *   then their actions; prints turns/s and actions/s at saturation and the latencies, which are queueing there.
 * - Before both, BENCH_SOLO (40) turns and actions of one call alone.
 *
 * Each replica runs with bench/probe.ts preloaded, so the run also prints, per turn and per action of the saturation
 * phases, the replicas' CPU time, the SQL statements and the Redis commands they sent (BENCH_DETAIL=1 lists them)
 * and the event-loop delay (BENCH_TRACE=text lists the statements containing `text` by calling function).
 * BENCH_CPU_PROF_DIR=dir writes a CPU profile of each replica there when it stops. BENCH_TRACE=timeline prints, for
 * the turns and actions of one call alone, every statement, Redis command and model request either replica started
 * during the request, with median start offsets and durations (see timelineReport). The whole pass then runs again
 * with the replicas tracing to a local OTLP receiver, and the cost of tracing is printed (BENCH_TRACING=off skips it).
 */
const CALLS = Number(process.env.BENCH_CALLS ?? 50);
const TURNS = Number(process.env.BENCH_TURNS ?? 10);
const ACTIONS = Number(process.env.BENCH_ACTIONS ?? 5);
const MODEL_MS = 50;
/** Turns and actions of one call alone before the concurrent phases. */
const SOLO = Number(process.env.BENCH_SOLO ?? 40);
/** A live call's pause between a step's answer and its next step (the customer speaking), in ms: `min-max`. */
const [GAP_MIN, GAP_MAX] = (process.env.BENCH_GAP_MS ?? '1000-2000').split('-').map(Number);
const SEED = Number(process.env.BENCH_SEED ?? 15);
const TURN_GOAL_MS = 30;
const ACTION_GOAL_MS = 50;

/** A seeded generator of numbers in [0, 1) (mulberry32): the same pauses and orders on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const run = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
/** The database of a pass (`tag` sets apart the pass run beside it). */
function dbUrlOf(tag: string): URL {
  const url = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = `/cap_bench_${run}${tag}`;
  return url;
}
const agent = new https.Agent({ keepAlive: true, rejectUnauthorized: false, maxSockets: 256 });

interface Answer {
  status: number;
  body: { data?: Record<string, unknown> & { items?: unknown[] } };
  ms: number;
}

function call(base: string, token: string, method: string, p: string, body?: unknown): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${base}${p}`,
      {
        method,
        agent,
        headers: {
          Host: 'bench.localhost',
          Authorization: `Bearer ${token}`,
          ...(payload
            ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) }
            : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString() || '{}'),
            ms: Number(process.hrtime.bigint() - started) / 1e6,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function seed(dbUrl: URL): Promise<string> {
  await migrate(dbUrl.toString());
  const db = new Client({ connectionString: dbUrl.toString() });
  await db.connect();
  const { token } = await seedBenchTenant(db, 'bench');
  await db.end();
  return token;
}

/** The probe's clock (bench/probe.ts): ms since the epoch, comparable between the processes of one machine. */
const clock = (): number => performance.timeOrigin + performance.now();

/**
 * BENCH_TRACE=timeline: where one request's time goes. For each request (its client-side window), every wait that
 * either replica started inside the window (the incoming request itself, statements, Redis commands, outgoing
 * fetches), labelled by what it was and its occurrence in the window; printed in order of median start with the
 * median start offset and duration, and how many of the windows had it.
 */
function timelineReport(label: string, windows: [number, number][], events: TimelineEvent[]): string {
  const byLabel = new Map<string, { starts: number[]; durations: number[] }>();
  const order: string[] = [];
  const pids = [...new Set(events.map((e) => e.pid))].sort();
  for (const [from, to] of windows) {
    const seen = new Map<string, number>();
    for (const e of events) {
      if (e.from < from || e.from > to) continue;
      const base = `r${pids.indexOf(e.pid)}${e.inRequest ? '*' : ' '} ${e.kind.padEnd(5)} ${e.what.slice(0, 110)}`;
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      const key = n > 1 ? `${base} #${n}` : base;
      let slot = byLabel.get(key);
      if (!slot) {
        slot = { starts: [], durations: [] };
        byLabel.set(key, slot);
        order.push(key);
      }
      slot.starts.push(e.from - from);
      slot.durations.push(e.to - e.from);
    }
  }
  const med = (l: number[]) =>
    percentile(
      [...l].sort((x, y) => x - y),
      50,
    );
  const totals = windows.map(([f, t]) => t - f).sort((x, y) => x - y);
  const rows = order
    .map((k) => ({ k, s: byLabel.get(k)! }))
    .filter(({ s }) => s.starts.length >= windows.length / 2)
    .sort((x, y) => med(x.s.starts) - med(y.s.starts));
  return [
    `${label}: ${windows.length} requests, client-side p50 ${percentile(totals, 50).toFixed(1)} ms (start offset, duration, in how many; medians; * = sent while serving a request)`,
    ...rows.map(
      ({ k, s }) =>
        `  +${med(s.starts).toFixed(1).padStart(6)}  ${med(s.durations).toFixed(1).padStart(6)} ms  ${String(s.starts.length).padStart(3)}  ${k}`,
    ),
  ].join('\n');
}

const progressOf = (m: string) => process.stderr.write(`${new Date().toISOString()} ${m}\n`);

const fmt = (sorted: number[]) =>
  `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms (n=${sorted.length})`;
const goal = (sorted: number[], ms: number) =>
  `goal p99 < ${ms} ms: ${percentile(sorted, 99) < ms ? 'met' : 'not met'}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(tracing: Record<string, string>, side: PassSide): Promise<PassFigures> {
  const dbUrl = dbUrlOf(side.tag);
  const storage = path.join(os.tmpdir(), `cap-bench-${run}${side.tag}`);
  const probeDir = path.join(os.tmpdir(), `cap-bench-probe-${run}${side.tag}`);
  const progress = (m: string) => progressOf(`${side.tag ? `${side.tag}: ` : ''}${m}`);
  const llm = await LlmServer.start();
  llm.latencyMs = MODEL_MS;
  fs.mkdirSync(probeDir, { recursive: true });
  const token = await seed(dbUrl);
  progress('seeded');
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    NODE_ENV: 'production',
    DATABASE_URL: dbUrl.toString(),
    REDIS_PREFIX: `cap-bench-${run}${side.tag}${Object.keys(tracing).length ? '-traced' : ''}`,
    STORAGE_DIR: storage,
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    RATE_LIMIT_PER_MINUTE: '100000000',
    LOG_LEVEL: 'silent',
    SERVICE_DOMAIN: 'localhost',
    LLM_BASE_URL: llm.url,
    SANDBOX_ANSWER_DELAY_MS: '0',
    BENCH_PROBE_DIR: probeDir,
    ...tracing,
  };
  const a = await startServer(env, { probe: true });
  const b = await startServer(env, { probe: true });
  progress('replicas up');
  const replicas = [a.url, b.url];
  try {
    const agentRes = await call(a.url, token, 'POST', '/api/v1/agents', {
      name: 'Bench agent',
      status: 'ready',
    });
    const agentId = agentRes.body.data!.agent_uuid as string;
    const number = await call(a.url, token, 'POST', '/api/v1/phone-numbers', {
      number: '+16282000100',
      provider: 'sandbox',
    });
    await call(a.url, token, 'POST', `/api/v1/agents/${agentId}/phone-numbers`, {
      phone_number_uuid: number.body.data!.uuid,
      channels: ['call'],
    });

    // Set-up: every call placed at once, alternating replicas, until each is in-progress.
    const setupStart = Date.now();
    const placed = await Promise.all(
      Array.from({ length: CALLS }, (_, i) =>
        call(replicas[i % 2], token, 'POST', '/api/v1/call', {
          agent_uuid: agentId,
          to: `+1415${200 + i}7777`,
        }),
      ),
    );
    const refused = placed.filter((r) => r.status !== 201);
    if (refused.length) throw new Error(`calls refused: ${JSON.stringify(refused[0].body)}`);
    const ids = placed.map((r) => r.body.data!.uuid as string);
    for (let polls = 0; ; polls += 1) {
      const live = await call(a.url, token, 'GET', `/api/v1/calls?status=in-progress&per_page=100`);
      if ((live.body.data!.items ?? []).length >= CALLS) break;
      if (polls > 3000) throw new Error('calls were not all answered within about 30 s');
      await new Promise((r) => setTimeout(r, 10));
    }
    const setupSeconds = (Date.now() - setupStart) / 1000;
    progress('calls answered');

    // Alone: one call's turns and actions with nothing else in flight, the pipeline's own latency without queueing.
    const soloTurnMs: number[] = [];
    const soloActionMs: number[] = [];
    const timeline = process.env.BENCH_TRACE === 'timeline';
    const turnWindows: [number, number][] = [];
    const actionWindows: [number, number][] = [];
    await side.reached('one call alone');
    const beforeSolo = timeline ? await probe([a.child, b.child], probeDir) : [];
    for (let n = 0; n < SOLO; n += 1) {
      const turnFrom = clock();
      const r = await call(replicas[0], token, 'POST', `/api/v1/calls/${ids[0]}/simulate`, {
        action: 'say',
        text: `Warm-up question ${n}`,
      });
      if (r.status !== 200) throw new Error(`turn: ${r.status} ${JSON.stringify(r.body)}`);
      soloTurnMs.push(r.ms - MODEL_MS);
      if (n >= 5) turnWindows.push([turnFrom, clock()]);
      const actionFrom = clock();
      const act = await call(replicas[1], token, 'POST', `/api/v1/calls/action/${ids[0]}/say`, {
        message: `Alone ${n}`,
      });
      if (act.status !== 200) throw new Error(`action: ${act.status} ${JSON.stringify(act.body)}`);
      soloActionMs.push(act.ms);
      if (n >= 5) actionWindows.push([actionFrom, clock()]);
    }
    progress('single call done');
    if (timeline) {
      void beforeSolo;
      const events = (await probe([a.child, b.child], probeDir)).flatMap((s) => s.timeline ?? []);
      process.stdout.write(
        `${timelineReport('one call alone, turn', turnWindows, events)}\n${timelineReport('one call alone, action', actionWindows, events)}\n`,
      );
    }

    const turn = async (i: number, id: string, text: string): Promise<number> => {
      const r = await call(replicas[i % 2], token, 'POST', `/api/v1/calls/${id}/simulate`, {
        action: 'say',
        text,
      });
      if (r.status !== 200) throw new Error(`turn: ${r.status} ${JSON.stringify(r.body)}`);
      return r.ms - MODEL_MS;
    };
    const action = async (i: number, id: string, message: string): Promise<number> => {
      const r = await call(replicas[(i + 1) % 2], token, 'POST', `/api/v1/calls/action/${id}/say`, {
        message,
      });
      if (r.status !== 200) throw new Error(`action: ${r.status} ${JSON.stringify(r.body)}`);
      return r.ms;
    };

    // Live calls: every call side by side, each step (a turn or an action, in a seeded order) 1 to 2 s after the
    // previous step's answer, as a customer speaks; the first step of each call at a random moment of the first gap.
    const random = seeded(SEED);
    const gap = () => GAP_MIN + random() * (GAP_MAX - GAP_MIN);
    const plans = ids.map(() => {
      const steps = [...Array(TURNS).fill('turn'), ...Array(ACTIONS).fill('action')] as ('turn' | 'action')[];
      for (let k = steps.length - 1; k > 0; k -= 1) {
        const j = Math.floor(random() * (k + 1));
        [steps[k], steps[j]] = [steps[j], steps[k]];
      }
      return steps.map((kind) => ({ kind, pause: gap() }));
    });
    const liveTurnMs: number[] = [];
    const liveActionMs: number[] = [];
    await side.reached('live calls');
    const beforeLive = await probe([a.child, b.child], probeDir);
    const liveStart = Date.now();
    await Promise.all(
      ids.map(async (id, i) => {
        for (const [n, step] of plans[i].entries()) {
          await sleep(n === 0 ? step.pause * random() : step.pause);
          if (step.kind === 'turn') liveTurnMs.push(await turn(i, id, `Live question ${n} about my order`));
          else liveActionMs.push(await action(i, id, `Live notice ${n}`));
        }
      }),
    );
    const liveSeconds = (Date.now() - liveStart) / 1000;
    progress('live calls done');

    // Saturation: each call takes its turns back to back on the replica that placed it; calls run side by side.
    const turnMs: number[] = [];
    await side.reached('saturation');
    const beforeTurns = await probe([a.child, b.child], probeDir);
    const liveSteps = liveTurnMs.length + liveActionMs.length;
    const turnsStart = Date.now();
    await Promise.all(
      ids.map(async (id, i) => {
        for (let n = 0; n < TURNS; n += 1) turnMs.push(await turn(i, id, `Question ${n} about my order`));
      }),
    );
    const turnsSeconds = (Date.now() - turnsStart) / 1000;
    progress('turns done');
    const afterTurns = await probe([a.child, b.child], probeDir);

    // Actions: posted to the replica that does not own the call, answered once the owner performed them.
    const actionMs: number[] = [];
    const actionsStart = Date.now();
    await Promise.all(
      ids.map(async (id, i) => {
        for (let n = 0; n < ACTIONS; n += 1) actionMs.push(await action(i, id, `Notice ${n}`));
      }),
    );
    const actionsSeconds = (Date.now() - actionsStart) / 1000;
    const afterActions = await probe([a.child, b.child], probeDir);
    await Promise.all(
      ids.map((id, i) =>
        call(replicas[i % 2], token, 'POST', `/api/v1/calls/${id}/simulate`, { action: 'hangup' }),
      ),
    );

    for (const list of [turnMs, actionMs, soloTurnMs, soloActionMs, liveTurnMs, liveActionMs])
      list.sort((x, y) => x - y);
    const steps = liveTurnMs.length + liveActionMs.length;
    process.stdout.write(
      [
        ...(side.tag ? [`${side.tag}:`] : []),
        `calls set up:                      ${CALLS} in ${setupSeconds.toFixed(2)} s = ${(CALLS / setupSeconds).toFixed(1)} calls/s (POST /call to in-progress, 2 replicas)`,
        `live calls:                        ${CALLS} side by side, each ${TURNS} turns and ${ACTIONS} actions, every step ${GAP_MIN}-${GAP_MAX} ms after the last answer (seed ${SEED}): ${steps} steps in ${liveSeconds.toFixed(1)} s = ${(steps / liveSeconds).toFixed(1)}/s`,
        `  turn latency minus the model 50 ms: ${fmt(liveTurnMs)}; ${goal(liveTurnMs, TURN_GOAL_MS)}`,
        `  action round trip (non-owner):      ${fmt(liveActionMs)}; ${goal(liveActionMs, ACTION_GOAL_MS)}`,
        `saturation (back to back, ${CALLS} in flight; throughput, the latencies are queueing):`,
        `  turns:   ${turnMs.length} in ${turnsSeconds.toFixed(1)} s = ${(turnMs.length / turnsSeconds).toFixed(1)} turns/s; latency minus the model ${fmt(turnMs)}`,
        `  actions: ${actionMs.length} in ${actionsSeconds.toFixed(1)} s = ${(actionMs.length / actionsSeconds).toFixed(1)} actions/s; round trip ${fmt(actionMs)}`,
        `one call alone, turn minus model:  ${fmt(soloTurnMs.slice(SOLO > 10 ? 5 : 0))} (first 5 warm-up left out)`,
        `one call alone, action round trip: ${fmt(soloActionMs.slice(SOLO > 10 ? 5 : 0))}`,
        `model calls:                       ${llm.calls.length}`,
        spent(beforeLive, beforeTurns, liveSteps, 'per step   (live calls, with their pauses)'),
        spent(beforeTurns, afterTurns, turnMs.length, 'per turn   (saturation)'),
        spent(afterTurns, afterActions, actionMs.length, 'per action (saturation)'),
        `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`,
      ].join('\n') + '\n',
    );
    const p99 = (l: number[]) => percentile(l, 99);
    return {
      p99: {
        'live turn minus model': p99(liveTurnMs),
        'live action': p99(liveActionMs),
        'saturation turn': p99(turnMs),
      },
      cpuMs: {
        'live step (with the pauses)': cpuPerUnit(beforeLive, beforeTurns, liveSteps),
        'turn (saturation)': cpuPerUnit(beforeTurns, afterTurns, turnMs.length),
      },
      mainCpuMs: {
        'live step (with the pauses)': cpuPerUnit(beforeLive, beforeTurns, liveSteps, true),
        'turn (saturation)': cpuPerUnit(beforeTurns, afterTurns, turnMs.length, true),
      },
      majorGcs: gcBetween(beforeLive, afterTurns),
      heapMb: heapAfter(afterTurns),
    };
  } finally {
    await Promise.all([stopServer(a.child), stopServer(b.child)]);
    await llm.close();
    await dropDatabase(dbUrl.toString());
    fs.rmSync(storage, { recursive: true, force: true });
    fs.rmSync(probeDir, { recursive: true, force: true });
  }
}

// The agent's sockets are closed once every pass is done: a pass beside another shares it.
runBench(() => withTracingCost(main).finally(() => agent.destroy()));
