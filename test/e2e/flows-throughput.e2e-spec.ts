import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { outboxInsertPerRow } from '@/modules/events/public';
import { FlowExecutionsRepository } from '@/modules/flows/executions.repository';
import { actionLogInsertPerRow } from '@/modules/logs/public';
import { createTenant, TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { startTestApp, TestApp } from '../setup/test-app';
import { waitFor } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * Two API instances, each with its workers and connection pool, on one database and one Redis: executions start back to back as slots free,
 * yet a workspace never runs more than 20 at once, every execution runs once, and they start in the order queued.
 */
describe('automation flows: starting executions back to back across two workers', () => {
  const COUNT = 120;
  const DELAY_MS = 1000;
  const FIRST_DELAY_MS = 3000;
  const REDIS_PREFIX = `${process.env.REDIS_PREFIX}-flows-throughput`;
  // Declared before the suite start so the second instance closes before the first.
  afterAll(async () => {
    await b?.close();
  });
  const suite = useTestApp({
    servers: { hooks: () => WebhookReceiver.start() },
    database: 'flows_throughput',
    env: { REDIS_PREFIX },
    tenants: ['t'],
  });
  let a: TestApp;
  let b: TestApp;
  let t: TestTenant;
  let hooks: WebhookReceiver;
  let db: DataSource;

  // The second instance shares the first one's database and Redis prefix.
  beforeAll(async () => {
    ({ app: a, t, hooks } = suite);
    b = await startTestApp({ DATABASE_URL: suite.databaseUrl, REDIS_PREFIX });
    db = a.get<DataSource>(DataSource);
  });

  it('never more than 20 running, each execution once, started in queued order, none lost', async () => {
    // The first twenty hold their slot longer, so the line builds up past the limit however slowly a loaded machine
    // sends the triggers (one after another, below).
    hooks.on('/work', (_r, n) => ({ status: 200, body: '{}', delayMs: n <= 20 ? FIRST_DELAY_MS : DELAY_MS }));
    const f = (await t.http.post('/api/v1/flows').send({ name: 'throughput' }).expect(201)).body.data;
    await t.http
      .post(`/api/v1/flow/${f.uuid}/steps`)
      .send({ kind: 'trigger', trigger_key: 'webhook', config: {} })
      .expect(201);
    await t.http
      .post(`/api/v1/flow/${f.uuid}/steps`)
      .send({ kind: 'action', action_key: 'send_webhook', config: { url: hooks.url('/work'), body: {} } })
      .expect(201);
    const deployed = (await t.http.post(`/api/v1/flow/${f.uuid}/deploy`).expect(200)).body.data;
    const path = new URL(deployed.steps[0].config.url as string).pathname;

    // Sample the running count while the triggers arrive through both processes and the executions run.
    let sampling = true;
    let maxRunning = 0;
    const sampler = (async () => {
      while (sampling) {
        const [{ n }] = await db.query(
          `SELECT count(*)::int AS n FROM flow_executions WHERE workspace_id = $1 AND status = 'running'`,
          [t.workspaceId],
        );
        maxRunning = Math.max(maxRunning, n);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const other = b.http(t.host, t.token);
    // One after another (each committed before the next is sent), so the order queued is the order committed.
    for (let i = 0; i < COUNT; i++) await (i % 2 ? other : t.http).post(path).send({ i }).expect(202);
    const rows = await waitFor(
      async () => {
        const r: Array<{ status: string; created_at: Date; started_at: Date; id: string }> = await db.query(
          `SELECT id, status, created_at, started_at FROM flow_executions WHERE workspace_id = $1 AND flow_id = $2`,
          [t.workspaceId, f.uuid],
        );
        return r.filter((x) => x.status === 'succeeded' || x.status === 'failed').length >= COUNT
          ? r
          : undefined;
      },
      60_000,
      `${COUNT} executions ended`,
    );
    sampling = false;
    await sampler;

    expect(rows).toHaveLength(COUNT);
    expect(rows.every((r) => r.status === 'succeeded')).toBe(true);
    expect(maxRunning).toBe(20); // the waiting line built up: the limit was reached
    expect(maxRunning).toBeLessThanOrEqual(20);
    // Each execution sent its webhook once.
    const received = hooks.at('/work');
    expect(received).toHaveLength(COUNT);
    expect(new Set(received.map((x) => x.headers['webhook-id'])).size).toBe(COUNT);
    // Requests in flight at once (each held DELAY_MS by the receiver) never pass the limit.
    const arrivals = received.map((x) => x.at).sort((x, y) => x - y);
    const overlap = Math.max(
      ...arrivals.map((s) => arrivals.filter((o) => o >= s && o < s + DELAY_MS - 20).length),
    );
    expect(overlap).toBeLessThanOrEqual(20);
    // Started in the order queued: one queued earlier never starts after one queued later.
    const byQueue = [...rows].sort(
      (x, y) => +new Date(x.created_at) - +new Date(y.created_at) || (x.id < y.id ? -1 : 1),
    );
    for (let i = 1; i < byQueue.length; i++)
      expect(+new Date(byQueue[i].started_at)).toBeGreaterThanOrEqual(+new Date(byQueue[i - 1].started_at));
    // Back to back: 120 executions of 1 s (the first twenty 3 s), 20 at a time, take about 8 s of running, not one
    // poll per start.
    const span =
      Math.max(...rows.map((r) => +new Date(r.started_at))) -
      Math.min(...rows.map((r) => +new Date(r.started_at)));
    expect(span).toBeLessThan(15_000);
    // Ends written together still give each execution its own `flow_execution` event, carrying that execution's
    // chain, and its own action-log row.
    const ids = rows.map((r) => r.id).sort();
    const events: Array<{ chain: string[]; data: { execution: { uuid: string; status: string } } }> =
      await db.query(
        `SELECT chain, data FROM outbox_events WHERE workspace_id = $1 AND type = 'flow_execution'`,
        [t.workspaceId],
      );
    expect(events.map((e) => e.data.execution.uuid).sort()).toEqual(ids);
    for (const e of events) {
      expect(e.chain).toEqual([e.data.execution.uuid]);
      expect(e.data.execution.status).toBe('succeeded');
    }
    const logs: Array<{ subject_id: string }> = await db.query(
      `SELECT subject_id FROM action_logs WHERE workspace_id = $1 AND type = 'workflow' AND status = 'succeeded'`,
      [t.workspaceId],
    );
    expect(logs.map((l) => l.subject_id).sort()).toEqual(ids);
    // 120 triggers sent one after another through two processes, then up to 60 s of waiting: more than the default.
  }, 120_000);

  it('ends written in one statement add events and log rows only for the executions actually ended', async () => {
    const f = (await t.http.post('/api/v1/flows').send({ name: 'ends' }).expect(201)).body.data;
    const insert = async (owner: string) => {
      const id = uuidv7();
      await db.query(
        `INSERT INTO flow_executions (id, workspace_id, flow_id, version, status, trigger, chain, started_at,
                                      claimed_by, lease_until)
         VALUES ($1, $2, $3, 1, 'running', '{}', ARRAY[$1]::uuid[], now(), $4, now() + interval '2 minutes')`,
        [id, t.workspaceId, f.uuid, owner],
      );
      return id;
    };
    const held = [await insert('ends-owner'), await insert('ends-owner')];
    const lost = await insert('another-owner'); // handed back meanwhile: not this writer's to end
    const all = [...held, lost];
    const ended = await a.get<FlowExecutionsRepository>(FlowExecutionsRepository).finishMany(
      t.workspaceId,
      'ends-owner',
      all.map((id) => ({ id, status: 'succeeded' as const, steps: [], error: null })),
      (written, params) => [
        outboxInsertPerRow(
          written,
          t.workspaceId,
          all.map((id) => ({
            key: id,
            event: { type: 'flow_execution', agentId: null, chain: [id], data: { execution: { uuid: id } } },
          })),
          params,
        ),
        actionLogInsertPerRow(
          written,
          t.workspaceId,
          all.map((id) => ({
            key: id,
            entry: { type: 'workflow', name: 'ends', status: 'succeeded', subjectId: id },
          })),
          params,
        ),
      ],
    );
    expect(ended.sort()).toEqual([...held].sort());
    const events: Array<{ chain: string[]; uuid: string }> = await db.query(
      `SELECT chain, data->'execution'->>'uuid' AS uuid FROM outbox_events
        WHERE workspace_id = $1 AND type = 'flow_execution' AND data->'execution'->>'uuid' = ANY($2)`,
      [t.workspaceId, all],
    );
    expect(events.map((e) => e.uuid).sort()).toEqual([...held].sort());
    for (const e of events) expect(e.chain).toEqual([e.uuid]);
    const logs: Array<{ subject_id: string }> = await db.query(
      `SELECT subject_id FROM action_logs WHERE workspace_id = $1 AND subject_id = ANY($2)`,
      [t.workspaceId, all],
    );
    expect(logs.map((l) => l.subject_id).sort()).toEqual([...held].sort());
    const [still] = await db.query(`SELECT status, claimed_by FROM flow_executions WHERE id = $1`, [lost]);
    expect(still).toEqual({ status: 'running', claimed_by: 'another-owner' });
  });

  it("another workspace's token can neither read nor detect these executions", async () => {
    const flows = (await t.http.get('/api/v1/flows').expect(200)).body.data.items as Array<{ uuid: string }>;
    const intruder = await createTenant(b);
    const res = await intruder.http.get(`/api/v1/flow/${flows[0].uuid}/executions`);
    expect(res.status).toBe(404);
  });
});
