/**
 * `npm run bench:flows`: 20 deployed flows react to 1,000 `contact_created` events created at 100/s. Each flow's
 * one action is a `send_webhook` to a local receiver (in a process of its own, as a customer's endpoint would be). Prints, beside each goal: event → first action started p50 and
 * p99 (the contact's commit to the step's start, both read from the database), executions per second, executions
 * lost and duplicated (by execution and by webhook received). One process with its workers, on a throwaway database.
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
import { percentile, runBench } from './stats';

const FLOWS = Number(process.env.BENCH_FLOWS ?? 20);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1000);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const phone = (n: number): string => `+4479${String(n).padStart(8, '0')}`;
const agent = new https.Agent({ keepAlive: true, rejectUnauthorized: false, maxSockets: 64 });

/** A POST over kept-alive TLS connections (a handshake per request would be most of the cost at 100/s). */
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

const progress = (m: string) => process.stderr.write(`${new Date().toISOString()} ${m}\n`);

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

function receiverReport(child: ChildProcess): Promise<{ received: number; distinct: number }> {
  return new Promise((resolve) => {
    child.once('message', resolve);
    child.send('report');
  });
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
    const before = await snapshotSelf<ProbeSnapshot>();
    const started = Date.now();
    const creates: Array<Promise<unknown>> = [];
    for (let i = 0; i < EVENTS; i++) {
      const due = started + (i * 1000) / RATE;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      creates.push(
        post(app.url, t.host, t.token, '/api/v1/contacts', {
          name: `Bench ${i}`,
          phone_number: phone(i),
        }).then((status) => {
          if (status !== 201) throw new Error(`contact: ${status}`);
        }),
      );
    }
    await Promise.all(creates);
    const sentSeconds = (Date.now() - started) / 1000;
    progress(`${EVENTS} contacts created in ${sentSeconds.toFixed(1)} s`);
    const expected = FLOWS * EVENTS;
    const deadline = Date.now() + 15 * 60_000;
    for (;;) {
      const [{ n }] = await db.query(
        `SELECT count(*)::int AS n FROM flow_executions WHERE workspace_id = $1 AND status IN ('succeeded', 'failed')`,
        [t.workspaceId],
      );
      if (n >= expected || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const after = await snapshotSelf<ProbeSnapshot>();
    const rows: Array<{
      latency_ms: number;
      started_at: Date;
      finished_at: Date;
      status: string;
      event: string;
      action_ms: number;
      run_ms: number;
      to_action_ms: number;
    }> = await db.query(
      `SELECT e.status, e.started_at, e.finished_at, e.trigger->>'event_uuid' AS event,
              (e.steps->1->>'duration_ms')::float AS action_ms,
              extract(epoch FROM (e.finished_at - e.started_at)) * 1000 AS run_ms,
              extract(epoch FROM ((e.steps->1->>'started_at')::timestamptz - e.started_at)) * 1000 AS to_action_ms,
              extract(epoch FROM ((e.steps->1->>'started_at')::timestamptz - (e.trigger->'data'->'contact'->>'created_at')::timestamptz)) * 1000 AS latency_ms
         FROM flow_executions e WHERE e.workspace_id = $1`,
      [t.workspaceId],
    );
    const [{ distinct_pairs }] = await db.query(
      `SELECT count(DISTINCT (flow_id, trigger->>'event_uuid'))::int AS distinct_pairs FROM flow_executions WHERE workspace_id = $1`,
      [t.workspaceId],
    );
    const latencies = rows
      .map((r) => Number(r.latency_ms))
      .filter((x) => !Number.isNaN(x))
      .sort((a, b) => a - b);
    // The first action of each event: the earliest of its executions' first steps.
    const perEvent = new Map<string, number>();
    for (const r of rows) {
      const x = Number(r.latency_ms);
      if (!Number.isNaN(x)) perEvent.set(r.event, Math.min(perEvent.get(r.event) ?? Infinity, x));
    }
    const eventFirst = [...perEvent.values()].sort((a, b) => a - b);
    const first = Math.min(...rows.map((r) => +new Date(r.started_at)));
    const last = Math.max(...rows.map((r) => +new Date(r.finished_at)));
    const hooks = await receiverReport(receiver.child);
    const failed = rows.filter((r) => r.status !== 'succeeded').length;
    const seconds = (last - first) / 1000;
    const cpuMs = after.cpuMs - before.cpuMs;
    const statements = Object.entries(after.statements)
      .map(([k, n]) => [k, n - (before.statements[k] ?? 0)] as const)
      .filter(([, n]) => n > 0)
      .sort((a, b) => b[1] - a[1]);
    const totalStatements = statements.reduce((sum, [, n]) => sum + n, 0);
    const redisCommands = Object.entries(after.redis).reduce(
      (sum, [k, n]) => sum + n - (before.redis[k] ?? 0),
      0,
    );
    const per = (x: number) => (rows.length ? x / rows.length : 0).toFixed(1);
    const sortedOf = (f: (r: (typeof rows)[number]) => number) =>
      rows
        .map(f)
        .filter((x) => !Number.isNaN(x))
        .sort((a, b) => a - b);
    const actionMs = sortedOf((r) => Number(r.action_ms));
    const runMs = sortedOf((r) => Number(r.run_ms));
    const toActionMs = sortedOf((r) => Number(r.to_action_ms));
    const perExecutionMs = cpuMs / Math.max(1, rows.length);
    process.stdout.write(
      [
        `flows ${FLOWS}, contact_created events ${EVENTS} at ${RATE}/s (sent in ${sentSeconds.toFixed(1)} s), executions expected ${expected}`,
        `event -> first action started, every execution: p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms (goal p99 < 500 ms)`,
        `event -> first action started, first of each event's executions: p50 ${percentile(eventFirst, 50).toFixed(0)} ms, p99 ${percentile(eventFirst, 99).toFixed(0)} ms (${eventFirst.length} events)`,
        `executions per second: ${(rows.length / seconds).toFixed(0)} (${rows.length} in ${seconds.toFixed(1)} s); demanded ${FLOWS * RATE}/s, one workspace, at most 20 running`,
        `one execution, started -> finished: p50 ${percentile(runMs, 50).toFixed(0)} ms, p99 ${percentile(runMs, 99).toFixed(0)} ms; started -> its send_webhook step started: p50 ${percentile(toActionMs, 50).toFixed(0)} ms, p99 ${percentile(toActionMs, 99).toFixed(0)} ms; the step: p50 ${percentile(actionMs, 50).toFixed(0)} ms, p99 ${percentile(actionMs, 99).toFixed(0)} ms`,
        `event loop delay in the run: p99 ${after.loopDelayP99Ms.toFixed(0)} ms, max ${after.loopDelayMaxMs.toFixed(0)} ms`,
        `per execution (whole process, contact creation included): ${per(totalStatements)} SQL statements, ${per(redisCommands)} Redis commands, ${perExecutionMs.toFixed(1)} ms CPU; at ${FLOWS * RATE}/s that CPU is ${((perExecutionMs * FLOWS * RATE) / 1000).toFixed(1)} cores`,
        ...statements.slice(0, 12).map(([k, n]) => `  ${per(n)}/execution  ${k.slice(0, 110)}`),
        `lost: ${expected - distinct_pairs} (goal 0); duplicated executions: ${rows.length - distinct_pairs} (goal 0); failed: ${failed}`,
        `webhooks received: ${hooks.received}, distinct: ${hooks.distinct}, duplicated: ${hooks.received - hooks.distinct} (goal 0)`,
        `load average at the end: ${os
          .loadavg()
          .map((x) => x.toFixed(2))
          .join(' ')}`,
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
