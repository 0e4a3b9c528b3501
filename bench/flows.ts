/**
 * `npm run bench:flows`: 20 deployed flows react to 1,000 `contact_created` events created at 100/s. Each flow's
 * one action is a `send_webhook` to a local receiver. Prints, beside each goal: event → first action started p50 and
 * p99 (the contact's commit to the step's start, both read from the database), executions per second, executions
 * lost and duplicated (by execution and by webhook received). One process with its workers, on a throwaway database.
 */
import '../test/setup/env';
import { DataSource } from 'typeorm';
import * as https from 'node:https';
import * as os from 'node:os';
import globalSetup from '../test/setup/global-setup';
import globalTeardown from '../test/setup/global-teardown';
import { createTenant } from '../test/factories/workspace.factory';
import { startTestApp } from '../test/setup/test-app';
import { WebhookReceiver } from '../test/support/webhook-receiver';
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

async function main(): Promise<void> {
  await globalSetup();
  const app = await startTestApp({ RATE_LIMIT_PER_MINUTE: '100000000' });
  const receiver = await WebhookReceiver.start();
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
        config: { url: receiver.url('/bench'), body: { contact: '{{step1.contact.uuid}}', flow: i } },
      });
      const d = await t.http.post(`/api/v1/flow/${f.uuid}/deploy`);
      if (d.status !== 200) throw new Error(`deploy: ${d.status} ${JSON.stringify(d.body)}`);
    }
    progress(`${FLOWS} flows deployed`);
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
    const rows: Array<{ latency_ms: number; started_at: Date; finished_at: Date; status: string }> =
      await db.query(
        `SELECT e.status, e.started_at, e.finished_at,
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
    const first = Math.min(...rows.map((r) => +new Date(r.started_at)));
    const last = Math.max(...rows.map((r) => +new Date(r.finished_at)));
    const hits = receiver.at('/bench');
    const ids = new Set(hits.map((h) => h.headers['webhook-id']));
    const failed = rows.filter((r) => r.status !== 'succeeded').length;
    process.stdout.write(
      [
        `flows ${FLOWS}, contact_created events ${EVENTS} at ${RATE}/s (sent in ${sentSeconds.toFixed(1)} s), executions expected ${expected}`,
        `event -> first action started: p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms (goal p99 < 500 ms)`,
        `executions per second: ${(rows.length / ((last - first) / 1000)).toFixed(0)} (${rows.length} in ${((last - first) / 1000).toFixed(1)} s)`,
        `lost: ${expected - distinct_pairs} (goal 0); duplicated executions: ${rows.length - distinct_pairs} (goal 0); failed: ${failed}`,
        `webhooks received: ${hits.length}, distinct: ${ids.size}, duplicated: ${hits.length - ids.size} (goal 0)`,
        `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, one process with its workers`,
      ].join('\n') + '\n',
    );
  } finally {
    agent.destroy();
    await receiver.close();
    await app.close();
    await globalTeardown();
  }
}

runBench(main);
