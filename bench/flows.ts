/**
 * `npm run bench:flows`: how many flow executions a second one workspace sustains on this machine, and how soon an
 * event's first action starts at half that rate. 20 deployed flows (`contact_created` → `send_webhook` to a local
 * receiver in a process of its own, as a customer's endpoint would be); contacts are created over kept-alive HTTPS at
 * a paced rate, each offering one execution per flow. One process with its workers, on a throwaway database, warmed
 * for BENCH_WARMUP_SECONDS at the starting rate first.
 *
 * 1. Ramp: steps of BENCH_STEP_SECONDS at increasing offered rates (executions a second, from BENCH_START_RATE, ×1.5
 *    until a step fails; a first failure is tried once more, then the gap is halved twice). A step is sustained when
 *    every contact was accepted within 1 s of its time, at most half a second of offered work was left undone at the
 *    step's end (the backlog did not grow), everything offered had finished within 2 s after the step, and every
 *    execution so far ran exactly once (none lost, none duplicated by flow and event, none failed). The figure is the
 *    highest sustained rate, beside n8n's published 220 executions a second for one instance.
 * 2. Latency: BENCH_LATENCY_SECONDS at half that rate; event → first action started (the contact's commit to the
 *    action step's start, both read from the database), p50 and p99 for every execution and for each event's first,
 *    goal p99 < 500 ms.
 * Prints the figures as one table (value, reference or goal, met), the steps, and what an execution cost the process.
 */
import './probe-here';
import './probe';
import '../test/setup/env';
import { DataSource } from 'typeorm';
import { ChildProcess, fork } from 'node:child_process';
import * as https from 'node:https';
import * as path from 'node:path';
import * as os from 'node:os';
import globalSetup from '../test/setup/global-setup';
import globalTeardown from '../test/setup/global-teardown';
import { createTenant } from '../test/factories/workspace.factory';
import { startTestApp } from '../test/setup/test-app';
import type { ProbeSnapshot } from './probe';
import { snapshotSelf } from './probe-here';
import { percentile, runBench, table } from './stats';

const FLOWS = Number(process.env.BENCH_FLOWS ?? 20);
const STEP_SECONDS = Number(process.env.BENCH_STEP_SECONDS ?? 10);
const START_RATE = Number(process.env.BENCH_START_RATE ?? 100);
const LATENCY_SECONDS = Number(process.env.BENCH_LATENCY_SECONDS ?? 20);
/** No new ramp step starts after this many seconds of ramp. */
const RAMP_BUDGET_SECONDS = Number(process.env.BENCH_RAMP_BUDGET_SECONDS ?? 200);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
const BISECTIONS = 2;
/** n8n's published figure for one instance (queue mode off), executions a second. */
const N8N_ONE_INSTANCE = 220;
const GOAL_P99_MS = 500;
const ACCEPT_LATE_OK_MS = 1000;
const BACKLOG_OK_SECONDS = 0.5;
const DRAIN_OK_MS = 2000;
const DRAIN_CAP_MS = 60_000;

const phone = (n: number): string => `+4479${String(n).padStart(8, '0')}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const agent = new https.Agent({ keepAlive: true, rejectUnauthorized: false, maxSockets: 64 });
const progress = (m: string) => process.stderr.write(`${new Date().toISOString()} ${m}\n`);
const load = () => os.loadavg()[0].toFixed(2);

/** A POST over kept-alive TLS connections (a handshake per request would be most of the cost at these rates). */
function post(base: string, host: string, token: string, p: string, body: unknown): Promise<number> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${base}${p}`,
      {
        method: 'POST',
        agent,
        headers: {
          Host: host,
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The receiver's process and what it answers. */
function startReceiver(): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(path.join(__dirname, 'receiver-process.ts'), [], {
    execArgv: ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m: { url: string }) => resolve({ child, url: m.url }));
    child.once('exit', (code) => reject(new Error(`receiver exited with ${code}`)));
  });
}

/** Asks the receiver one question; callers ask one at a time. */
function ask<T>(child: ChildProcess, question: 'report' | 'count'): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', resolve);
    child.send(question);
  });
}

interface Step {
  rate: number;
  /** Executions done (webhooks received) per second during the step. */
  donePerSecond: number;
  /** Offered executions not yet done at the step's end, in seconds of offered work. */
  backlogSeconds: number;
  acceptLateMs: number;
  /** From the step's end until every execution offered so far had finished; undefined when they had not in 60 s. */
  drainMs?: number;
  lost: number;
  duplicated: number;
  failed: number;
  sustained: boolean;
}

async function main(): Promise<void> {
  await globalSetup();
  const app = await startTestApp({ RATE_LIMIT_PER_MINUTE: '100000000' });
  const receiver = await startReceiver();
  try {
    const t = await createTenant(app);
    const db = app.get<DataSource>(DataSource);
    for (let i = 0; i < FLOWS; i++) {
      const f = (await t.http.post('/api/v1/flows').send({ name: `bench ${i}` })).body.data;
      await t.http
        .post(`/api/v1/flow/${f.uuid}/steps`)
        .send({ kind: 'trigger', trigger_key: 'contact_created', config: {} });
      await t.http.post(`/api/v1/flow/${f.uuid}/steps`).send({
        kind: 'action',
        action_key: 'send_webhook',
        config: { url: receiver.url, body: { contact: '{{step1.contact.uuid}}', flow: i } },
      });
      const d = await t.http.post(`/api/v1/flow/${f.uuid}/deploy`);
      if (d.status !== 200) throw new Error(`deploy: ${d.status} ${JSON.stringify(d.body)}`);
    }
    progress(`${FLOWS} flows deployed`);

    let contacts = 0; // contacts offered so far, each FLOWS executions
    const counts = async () => {
      const [r] = await db.query(
        `SELECT count(*)::int AS rows,
                count(DISTINCT (flow_id, trigger->>'event_uuid'))::int AS pairs,
                count(*) FILTER (WHERE status = 'failed')::int AS failed
           FROM flow_executions WHERE workspace_id = $1`,
        [t.workspaceId],
      );
      return r as { rows: number; pairs: number; failed: number };
    };
    const finished = async (): Promise<number> =>
      (
        await db.query(
          `SELECT count(*)::int AS n FROM flow_executions WHERE workspace_id = $1 AND status IN ('succeeded', 'failed')`,
          [t.workspaceId],
        )
      )[0].n;
    const received = async () => (await ask<{ count: number }>(receiver.child, 'count')).count;

    /** Offers `rate` executions a second for `seconds` (contacts named `${label} n`), then waits for them to finish. */
    const offer = async (label: string, rate: number, seconds: number): Promise<Step> => {
      const events = Math.max(1, Math.round((rate / FLOWS) * seconds));
      const doneBefore = await received();
      const started = Date.now();
      let acceptLateMs = 0;
      const creates: Array<Promise<void>> = [];
      for (let i = 0; i < events; i++) {
        const due = started + (i * 1000 * FLOWS) / rate;
        const wait = due - Date.now();
        if (wait > 0) await sleep(wait);
        const n = contacts++;
        creates.push(
          post(app.url, t.host, t.token, '/api/v1/contacts', {
            name: `${label} ${n}`,
            phone_number: phone(n),
          }).then((status) => {
            if (status !== 201) throw new Error(`contact: ${status}`);
            acceptLateMs = Math.max(acceptLateMs, Math.round(Date.now() - due));
          }),
        );
      }
      const end = started + seconds * 1000;
      if (end > Date.now()) await sleep(end - Date.now());
      const doneAtEnd = await received();
      await Promise.all(creates);
      const expected = contacts * FLOWS;
      // The receiver is asked every 100 ms (no database work); the database confirms once it has everything, and
      // every second meanwhile (a failed execution sends no webhook).
      let drainMs: number | undefined;
      for (let i = 1; Date.now() - end < DRAIN_CAP_MS; i++) {
        if (((await received()) >= expected || i % 10 === 0) && (await finished()) >= expected) {
          drainMs = Math.max(0, Date.now() - end);
          break;
        }
        await sleep(100);
      }
      const c = await counts();
      const step: Omit<Step, 'sustained'> = {
        rate,
        donePerSecond: (doneAtEnd - doneBefore) / seconds,
        backlogSeconds: (expected - doneAtEnd) / rate,
        acceptLateMs,
        drainMs,
        lost: expected - c.pairs,
        duplicated: c.rows - c.pairs,
        failed: c.failed,
      };
      const sustained =
        acceptLateMs <= ACCEPT_LATE_OK_MS &&
        step.backlogSeconds <= BACKLOG_OK_SECONDS &&
        drainMs !== undefined &&
        drainMs <= DRAIN_OK_MS &&
        step.lost === 0 &&
        step.duplicated === 0 &&
        step.failed === 0;
      return { ...step, sustained };
    };

    // A fresh process compiles its request path in its first seconds: warm it at the starting rate, untimed.
    await offer('Warmup', START_RATE, WARMUP_SECONDS);
    progress(`warmed up: ${START_RATE}/s for ${WARMUP_SECONDS} s`);
    const loadAtStart = load();
    const rowsBefore = (await counts()).rows;
    const before = await snapshotSelf<ProbeSnapshot>();
    const steps: Step[] = [];
    const rampStarted = Date.now();
    const run = async (rate: number) => {
      const s = await offer('Ramp', rate, STEP_SECONDS);
      steps.push(s);
      progress(
        `${rate}/s offered: ${s.donePerSecond.toFixed(0)}/s done, backlog ${s.backlogSeconds.toFixed(2)} s, ` +
          `drained ${s.drainMs ?? '-'} ms: ${s.sustained ? 'sustained' : 'not sustained'} (load ${load()})`,
      );
      await sleep(1000);
      return s;
    };
    const inBudget = () => Date.now() - rampStarted < RAMP_BUDGET_SECONDS * 1000;
    let lo = 0;
    let hi = Infinity;
    let rate = START_RATE;
    let retried = false;
    while (hi === Infinity && inBudget()) {
      const s = await run(rate);
      if (s.drainMs === undefined)
        hi = rate; // a backlog that never cleared: stop here
      else if (s.sustained) {
        lo = rate;
        rate = Math.round((rate * 1.5) / 10) * 10;
      } else if (!retried) retried = true;
      else hi = rate;
    }
    for (
      let i = 0;
      i < BISECTIONS && hi !== Infinity && inBudget() && steps.at(-1)?.drainMs !== undefined;
      i++
    ) {
      const mid = Math.round((lo + hi) / 20) * 10;
      if (mid <= lo || mid >= hi) break;
      if ((await run(mid)).sustained) lo = mid;
      else hi = mid;
    }
    const sustainable = lo;

    const latencyRate = Math.round(sustainable / 2);
    let latency: Step | undefined;
    if (latencyRate > 0 && steps.at(-1)?.drainMs !== undefined) {
      progress(`latency phase: ${latencyRate}/s for ${LATENCY_SECONDS} s`);
      latency = await offer('Latency', latencyRate, LATENCY_SECONDS);
    }
    const after = await snapshotSelf<ProbeSnapshot>();
    const rows: Array<{ event: string; latency_ms: number }> = await db.query(
      `SELECT e.trigger->>'event_uuid' AS event,
              extract(epoch FROM ((e.steps->1->>'started_at')::timestamptz - (e.trigger->'data'->'contact'->>'created_at')::timestamptz)) * 1000 AS latency_ms
         FROM flow_executions e
        WHERE e.workspace_id = $1 AND e.trigger->'data'->'contact'->>'name' LIKE 'Latency %'`,
      [t.workspaceId],
    );
    const latencies = rows
      .map((r) => Number(r.latency_ms))
      .filter((x) => !Number.isNaN(x))
      .sort((a, b) => a - b);
    const perEvent = new Map<string, number>();
    for (const r of rows) {
      const x = Number(r.latency_ms);
      if (!Number.isNaN(x)) perEvent.set(r.event, Math.min(perEvent.get(r.event) ?? Infinity, x));
    }
    const eventFirst = [...perEvent.values()].sort((a, b) => a - b);
    const final = await counts();
    const hooks = await ask<{ received: number; distinct: number }>(receiver.child, 'report');
    const expected = contacts * FLOWS;

    const ms = (x: number | undefined) => (x === undefined ? 'not measured' : `${x.toFixed(0)} ms`);
    const yes = (ok: boolean) => (ok ? 'yes' : 'NO');
    const p = (list: number[], q: number) => (list.length ? percentile(list, q) : undefined);
    const lost = expected - final.pairs;
    const duplicated = final.rows - final.pairs + (hooks.received - hooks.distinct);
    const figures = [
      ['figure', 'value', 'reference / goal', 'met'],
      [
        'sustainable executions/s, one workspace (0 lost, 0 duplicated)',
        `${sustainable}/s`,
        `n8n ${N8N_ONE_INSTANCE}/s, one instance (reference)`,
        yes(sustainable >= N8N_ONE_INSTANCE),
      ],
    ];
    const latencyAt = latency ? ` at ${latencyRate}/s` : '';
    for (const [name, list] of [
      ['every execution', latencies],
      ["each event's first", eventFirst],
    ] as const) {
      const p99 = p([...list], 99);
      figures.push(
        [`event → first action p50${latencyAt}, ${name}`, ms(p([...list], 50)), '—', '—'],
        [
          `event → first action p99${latencyAt}, ${name}`,
          ms(p99),
          `p99 < ${GOAL_P99_MS} ms`,
          p99 === undefined ? 'not measured' : yes(p99 < GOAL_P99_MS),
        ],
      );
    }
    figures.push([
      'executions lost / duplicated, whole run',
      `${lost} / ${duplicated} of ${expected}`,
      '0 / 0',
      yes(lost === 0 && duplicated === 0),
    ]);
    const stepRows = [
      [
        'offered/s',
        'done/s in the step',
        'backlog at its end',
        'drained after',
        'accepted late by',
        'sustained',
      ],
      ...[...steps, ...(latency ? [latency] : [])].map((s) => [
        `${s.rate}${s === latency ? ' (latency)' : ''}`,
        s.donePerSecond.toFixed(0),
        `${s.backlogSeconds.toFixed(2)} s`,
        s.drainMs === undefined ? `not in ${DRAIN_CAP_MS / 1000} s` : `${s.drainMs} ms`,
        `${s.acceptLateMs} ms`,
        s.sustained
          ? 'yes'
          : `no${s.lost || s.duplicated || s.failed ? ` (lost ${s.lost}, dup ${s.duplicated}, failed ${s.failed})` : ''}`,
      ]),
    ];
    const executions = Math.max(1, final.rows - rowsBefore);
    const statements = Object.entries(after.statements).reduce(
      (sum, [k, n]) => sum + n - (before.statements[k] ?? 0),
      0,
    );
    const redisCommands = Object.entries(after.redis).reduce(
      (sum, [k, n]) => sum + n - (before.redis[k] ?? 0),
      0,
    );
    process.stdout.write(
      [
        `flows: ${FLOWS} deployed in one workspace (at most 20 running), contact_created → send_webhook; steps of ${STEP_SECONDS} s`,
        '',
        table(figures),
        '',
        table(stepRows),
        '',
        `a step is sustained when its contacts were accepted within ${ACCEPT_LATE_OK_MS} ms, at most ${BACKLOG_OK_SECONDS} s of offered work was undone at its end, everything had finished ${DRAIN_OK_MS} ms after it, and nothing was lost, duplicated or failed`,
        `per execution after the warm-up (whole process, contact creation included): ${(statements / executions).toFixed(1)} SQL statements, ${(redisCommands / executions).toFixed(1)} Redis commands, ${((after.cpuMs - before.cpuMs) / executions).toFixed(2)} ms CPU; event loop delay p99 ${after.loopDelayP99Ms.toFixed(0)} ms`,
        `webhooks received: ${hooks.received}, distinct: ${hooks.distinct}; executions failed: ${final.failed}`,
        `load average (1 min): ${loadAtStart} at the start, ${load()} at the end; run ${((Date.now() - rampStarted) / 1000).toFixed(0)} s`,
        `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, one process with its workers, the receiver in another`,
      ].join('\n') + '\n',
    );
  } finally {
    agent.destroy();
    receiver.child.removeAllListeners('exit');
    receiver.child.send('stop');
    await app.close();
    await globalTeardown();
  }
}

runBench(main);
