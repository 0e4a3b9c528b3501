import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { sandboxDestination, sandboxLine } from '../factories/call.factory';
import { createContact } from '../factories/contact.factory';
import { addMembers, createCampaign, createPool, tasksOf } from '../factories/outbound.factory';
import { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { TestApp } from '../setup/test-app';
import { ApiProcess, startApiProcess } from '../support/api-process-client';
import { waitFor } from '../support/wait';

jest.setTimeout(180_000);

/**
 * A dispatcher process killed (SIGKILL) after its claims committed and before their calls were written: the tasks
 * it held go back to `pending` once its heartbeat has expired and another process dials each of them once. The API
 * process of the suite runs no workers, so the process that claims is known.
 */
describe('outbound dispatcher: a process killed mid-claim', () => {
  const REDIS_PREFIX = `${process.env.REDIS_PREFIX}-outbound-recovery`;
  let b: ApiProcess | undefined;
  let c: ApiProcess | undefined;
  let locker: Client | undefined;
  // Declared before the suite start so the worker processes are gone before the API process closes.
  afterAll(async () => {
    await locker?.end().catch(() => undefined);
    await b?.kill();
    await c?.stop();
  });
  const suite = useTestApp({
    database: 'outbound_recovery',
    env: { REDIS_PREFIX, RUN_WORKERS: 'false', SANDBOX_ANSWER_DELAY_MS: '100', MAX_CONCURRENT_CALLS: '20' },
    tenants: ['t'],
  });
  let app: TestApp;
  let t: TestTenant;
  let db: DataSource;

  const workerEnv = () => ({
    DATABASE_URL: suite.databaseUrl,
    REDIS_PREFIX: app.config.redis.prefix,
    STORAGE_DIR: app.config.storageDir,
    ENCRYPTION_KEY: app.config.auth.encryptionKey!,
    SANDBOX_ANSWER_DELAY_MS: '100',
    MAX_CONCURRENT_CALLS: '20',
    LOG_LEVEL: 'silent',
  });

  beforeAll(() => {
    ({ app, t } = suite);
    db = app.get<DataSource>(DataSource);
  });

  it('loses and duplicates nothing: its claims are dialled once each by a survivor', async () => {
    const line = await sandboxLine(t, { settings: { voice: { silence_timeout_seconds: 1 } } });
    const members: Record<string, any>[] = [];
    for (const four of ['7611', '7612', '7613', '7614', '7615', '7616'])
      members.push(await createContact(t, { phone_number: sandboxDestination(four) }));
    const pool = await createPool(t, { type: 'Parallel', max_parallel_items: 10 });
    await addMembers(
      t,
      pool.uuid,
      members.map((m) => m.uuid),
    );
    const campaign = await createCampaign(t, {
      agent_uuid: line.agentId,
      pool_uuids: [pool.uuid],
      max_concurrency: 3,
    });

    // While the calls table is locked, a dispatcher's claims commit and its calls wait to be written.
    locker = new Client({ connectionString: suite.databaseUrl });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE calls IN EXCLUSIVE MODE');
    b = await startApiProcess(workerEnv());
    await t.http.post(`/api/v1/campaigns/${campaign.uuid}/start`).expect(200);
    const held = await waitFor(
      async () => {
        const rows: { id: string; claimed_by: string; claimed_at: Date }[] = await db.query(
          `SELECT id, claimed_by, claimed_at FROM outbound_tasks
            WHERE workspace_id = $1 AND campaign_id = $2 AND status = 'queued'`,
          [t.workspaceId, campaign.uuid],
        );
        return rows.length === 3 ? rows : undefined;
      },
      60_000,
      'three tasks claimed',
    );
    expect(held.every((r) => r.claimed_by.split(':')[1] === String(b!.child.pid))).toBe(true);

    await b.kill();
    await locker.query('ROLLBACK');
    await locker.end();
    locker = undefined;

    // Within the minute after which any claim counts as stuck: these come back because their process is dead.
    c = await startApiProcess(workerEnv());
    const tasks = await waitFor(
      async () => {
        const all = await tasksOf(t, `campaign_uuid=${campaign.uuid}`);
        return all.every((x) => ['completed', 'failed', 'cancelled', 'expired'].includes(x.status))
          ? all
          : undefined;
      },
      50_000,
      'every task ended',
    );
    expect(tasks).toHaveLength(6);
    expect(tasks.map((x) => [x.status, x.attempts_count])).toEqual(Array(6).fill(['completed', 1]));
    const calls: { task_id: string; n: number }[] = await db.query(
      `SELECT task_id, count(*)::int AS n FROM calls WHERE workspace_id = $1 AND campaign_id = $2 GROUP BY task_id`,
      [t.workspaceId, campaign.uuid],
    );
    expect(calls.map((r) => r.n)).toEqual(Array(6).fill(1));
    expect(calls.map((r) => r.task_id).sort()).toEqual(tasks.map((x) => x.uuid).sort());
    // Handed back because their process was dead, not because a claim counts as stuck after a minute.
    for (const h of held) {
      const task = tasks.find((x) => x.uuid === h.id)!;
      expect(Date.parse(task.started_at) - h.claimed_at.getTime()).toBeLessThan(60_000);
    }
  });
});
