import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { QUEUES } from '@/common/queue/queues';
import { FlowOwner } from '@/modules/flows/flow-owner';
import { FlowRecovery } from '@/modules/flows/flow-recovery';
import { createTenant, TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { TestApp } from '../setup/test-app';
import { ApiProcess, startApiProcess } from '../support/api-process-client';
import { waitFor } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

type StepRec = { step_number: number; status: string; attempts: number; error: { code: string } | null };
type Row = { id: string; status: string; claimed_by: string | null; steps: StepRec[]; updated_at: Date };

jest.setTimeout(120_000);

/**
 * Two API processes on one database and Redis prefix: executions running on one that is killed (SIGKILL) are
 * handed back by the survivor's sweep and resumed at the step they were on, each once; their slots return. A live
 * owner's executions, and paused ones still waiting for their job, are left alone.
 */
describe('automation flows: executions survive a dead process', () => {
  const REDIS_PREFIX = `${process.env.REDIS_PREFIX}-flows-recovery`;
  // Declared before the suite start so the second process is gone before the first app closes.
  afterAll(async () => {
    await b?.kill();
  });
  const suite = useTestApp({
    servers: { hooks: () => WebhookReceiver.start() },
    database: 'flows_recovery',
    env: { REDIS_PREFIX },
    tenants: ['t'],
  });
  let a: TestApp;
  let b: ApiProcess;
  let t: TestTenant;
  let hooks: WebhookReceiver;
  let db: DataSource;

  beforeAll(async () => {
    ({ app: a, t, hooks } = suite);
    db = a.get<DataSource>(DataSource);
    b = await startApiProcess({
      DATABASE_URL: suite.databaseUrl,
      REDIS_PREFIX: a.config.redis.prefix,
      STORAGE_DIR: a.config.storageDir,
      ENCRYPTION_KEY: a.config.auth.encryptionKey!,
      LOG_LEVEL: 'silent',
    });
  }, 180_000);

  const deploy = async (tenant: TestTenant, paths: string[]) => {
    const f = (await tenant.http.post('/api/v1/flows').send({ name: 'recovery' }).expect(201)).body.data;
    await tenant.http
      .post(`/api/v1/flow/${f.uuid}/steps`)
      .send({ kind: 'trigger', trigger_key: 'webhook', config: {} })
      .expect(201);
    for (const p of paths)
      await tenant.http
        .post(`/api/v1/flow/${f.uuid}/steps`)
        .send({
          kind: 'action',
          action_key: 'send_webhook',
          config: { url: hooks.url(p), body: { i: '{{step1.body.i}}' } },
        })
        .expect(201);
    const deployed = (await tenant.http.post(`/api/v1/flow/${f.uuid}/deploy`).expect(200)).body.data;
    return { id: f.uuid as string, hook: new URL(deployed.steps[0].config.url as string).pathname };
  };
  const rows = (workspaceId: string, flowId: string): Promise<Row[]> =>
    db.query(
      `SELECT id, status, claimed_by, steps, updated_at FROM flow_executions WHERE workspace_id = $1 AND flow_id = $2`,
      [workspaceId, flowId],
    );
  const running = async (workspaceId: string): Promise<number> =>
    (
      await db.query(
        `SELECT count(*)::int AS n FROM flow_executions WHERE workspace_id = $1 AND status = 'running'`,
        [workspaceId],
      )
    )[0].n;
  const ids = (path: string) => hooks.at(path).map((r) => String(r.headers['webhook-id']));

  it('a process killed mid-step: the survivor resumes its 20 executions at that step, each once, and the 21st runs', async () => {
    const HOLD_MS = 9_000;
    hooks.on('/held', (_r, n) => (n <= 20 ? { status: 200, body: '{}', delayMs: HOLD_MS } : { status: 200 }));
    const flow = await deploy(t, ['/first', '/held', '/last']);
    // This app's flow workers stand aside, so the other process claims and runs the executions.
    const queue = a.get<Queue>(getQueueToken(QUEUES.flows));
    await queue.pause(true);
    const onB = b.http(t.host, t.token);
    for (let i = 0; i < 21; i++) await onB.post(flow.hook).send({ i }).expect(202);
    await waitFor(async () => (hooks.at('/held').length >= 20 ? true : undefined), 8_000, '20 steps held');
    await b.kill();
    const owners = new Set((await rows(t.workspaceId, flow.id)).map((r) => r.claimed_by));
    expect(await running(t.workspaceId)).toBe(20);
    expect(owners.has(a.get<FlowOwner>(FlowOwner).id)).toBe(false);
    const started = Date.now();
    await queue.resume(true);

    const ended = await waitFor(
      async () => {
        const r = await rows(t.workspaceId, flow.id);
        return r.length === 21 && r.every((x) => x.status === 'succeeded') ? r : undefined;
      },
      60_000,
      '21 executions succeeded',
    ).catch(async (err: Error) => {
      // Say where each execution stopped, so a failure here explains itself.
      const state = (await rows(t.workspaceId, flow.id)).map((x) => ({
        status: x.status,
        owner: x.claimed_by,
        steps: x.steps.map(
          (s) => `${s.step_number}:${s.status}:${s.attempts}${s.error ? `:${s.error.code}` : ''}`,
        ),
      }));
      throw new Error(`${err.message}; executions: ${JSON.stringify(state)}`);
    });
    // Found within the heartbeat's life (6 s) plus a sweep (5 s), before the held requests would have answered.
    expect(Date.now() - started).toBeLessThan(30_000);
    const attempts = ended.map((r) => r.steps.map((s) => [s.step_number, s.status, s.attempts]));
    const resumed = attempts.filter((s) => s[2][2] === 2);
    expect(resumed).toHaveLength(20);
    for (const s of resumed)
      expect(s).toEqual([
        [1, 'succeeded', 1],
        [2, 'succeeded', 1],
        [3, 'succeeded', 2],
        [4, 'succeeded', 1],
      ]);
    expect(ended.every((r) => r.claimed_by === null)).toBe(true);
    // The steps done before the kill were not done again; the interrupted one was sent once more with the same
    // webhook-id (20 twice, the 21st once); every execution ended once.
    expect(new Set(ids('/first')).size).toBe(21);
    expect(ids('/first')).toHaveLength(21);
    expect(ids('/held')).toHaveLength(41);
    const perId = new Map<string, number>();
    for (const id of ids('/held')) perId.set(id, (perId.get(id) ?? 0) + 1);
    expect([...perId.values()].sort()).toEqual([...Array(20).fill(2), 1].sort());
    expect(ids('/last')).toHaveLength(21);
    expect(new Set(ids('/last')).size).toBe(21);
    const events = await db.query(
      `SELECT count(*)::int AS n, count(DISTINCT data->'execution'->>'uuid')::int AS d FROM outbox_events
        WHERE workspace_id = $1 AND type = 'flow_execution'`,
      [t.workspaceId],
    );
    expect(events[0]).toEqual({ n: 21, d: 21 });
    // The slots are back: 20 more run at once again.
    expect(await running(t.workspaceId)).toBe(0);
  });

  it("a live owner's executions and paused ones are left alone; a dead owner's and expired leases are handed back", async () => {
    const tenant = await createTenant(a);
    const flow = await deploy(tenant, ['/rows']);
    const mine = a.get<FlowOwner>(FlowOwner).id;
    const prefix = a.config.redis.prefix;
    const trigger = { key: 'webhook', event_uuid: null, data: { body: { i: 0 } } };
    const waiting = (attempts: number) => [
      { step_number: 1, step_uuid: null, key: 'webhook', status: 'succeeded', attempts: 1 },
      {
        step_number: 2,
        step_uuid: null,
        key: 'send_webhook',
        status: 'failed',
        attempts,
        error: { code: 'X' },
      },
    ];
    const version = (
      await db.query(
        `SELECT steps FROM flow_versions WHERE workspace_id = $1 AND flow_id = $2 AND version_number = 1`,
        [tenant.workspaceId, flow.id],
      )
    )[0].steps as Array<{ uuid: string }>;
    const paused = waiting(1).map((r, i) => ({ ...r, step_uuid: version[i].uuid }));
    // Its step already interrupted 4 times: the fifth is the last (MAX_STEP_ATTEMPTS).
    const worn = paused.map((r, i) => (i ? { ...r, attempts: 4, error: { code: 'INTERRUPTED' } } : r));
    const insert = async (claimedBy: string | null, lease: string, steps: unknown[] = [], resumeAt = 0) => {
      const id = uuidv7();
      await db.query(
        `INSERT INTO flow_executions (id, workspace_id, flow_id, version, status, trigger, chain, started_at,
                                      claimed_by, lease_until, steps, resume_at)
         VALUES ($1, $2, $3, 1, 'running', $4, ARRAY[$1]::uuid[], now(), $5, now() + $6::interval, $7, $8)`,
        [
          id,
          tenant.workspaceId,
          flow.id,
          JSON.stringify(trigger),
          claimedBy,
          lease,
          JSON.stringify(steps),
          resumeAt,
        ],
      );
      return id;
    };
    const liveOwner = await insert(mine, '2 minutes');
    const pausedWaiting = await insert(null, '2 minutes', paused, 1);
    const otherDeployment = await insert(`${prefix}-elsewhere/host:1:00000000`, '2 minutes');
    const deadOwner = await insert(`${prefix}/gone-host:4242:deadbeef`, '2 minutes');
    const stuck = await insert(mine, '-1 second');
    const jobLost = await insert(null, '-1 second', paused, 1);
    const diesEveryTime = await insert(`${prefix}/gone-host:4243:deadbeef`, '2 minutes', worn, 1);
    const before = new Map((await rows(tenant.workspaceId, flow.id)).map((r) => [r.id, r]));

    await a.get<FlowRecovery>(FlowRecovery).reclaim();
    const done = await waitFor(
      async () => {
        const r = new Map((await rows(tenant.workspaceId, flow.id)).map((x) => [x.id, x]));
        return [deadOwner, stuck, jobLost].every((id) => r.get(id)?.status === 'succeeded') &&
          r.get(diesEveryTime)?.status === 'failed'
          ? r
          : undefined;
      },
      20_000,
      'the handed-back executions ended',
    );
    const stepsOf = (id: string) => done.get(id)!.steps.map((s) => [s.status, s.attempts]);
    // Interrupted: the step it was on counted as an attempt, then tried again.
    expect(stepsOf(deadOwner)).toEqual([
      ['succeeded', 1],
      ['succeeded', 2],
    ]);
    expect(stepsOf(stuck)).toEqual([
      ['succeeded', 1],
      ['succeeded', 2],
    ]);
    // Paused, its job lost: resumed as it was (its one failed try, then this one).
    expect(stepsOf(jobLost)).toEqual([
      ['succeeded', 1],
      ['succeeded', 2],
    ]);
    // A step whose process died under it a fifth time fails the execution instead of being tried again.
    expect(stepsOf(diesEveryTime)).toEqual([
      ['succeeded', 1],
      ['failed', 5],
    ]);
    const [worn5] = await db.query(`SELECT error FROM flow_executions WHERE workspace_id = $1 AND id = $2`, [
      tenant.workspaceId,
      diesEveryTime,
    ]);
    expect(worn5.error).toMatchObject({ code: 'INTERRUPTED', step_number: 2 });
    expect(hooks.at('/rows')).toHaveLength(3);

    // Two more sweeps of their own (every 5 s) and one here: the others are exactly as they were.
    await new Promise((r) => setTimeout(r, 11_000));
    await a.get<FlowRecovery>(FlowRecovery).reclaim();
    const after = new Map((await rows(tenant.workspaceId, flow.id)).map((r) => [r.id, r]));
    for (const id of [liveOwner, pausedWaiting, otherDeployment])
      expect(after.get(id)).toEqual(before.get(id));
    expect(hooks.at('/rows')).toHaveLength(3);
    await db.query(`DELETE FROM flow_executions WHERE workspace_id = $1 AND id = ANY($2)`, [
      tenant.workspaceId,
      [liveOwner, pausedWaiting, otherDeployment],
    ]);
  });
});
