import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { DATABASE_SESSION_NAME } from '@/database/session-name';
import { OutboxListener } from '@/modules/events/jobs/outbox-listener';
import { OUTBOX_CHANNEL } from '@/modules/events/outbox.service';
import { emitEvent } from '../factories/webhook.factory';
import { useTestApp } from '../setup/suite';
import { startTestApp, TestApp } from '../setup/test-app';
import { waitFor } from '../support/wait';

jest.setTimeout(60_000);

/**
 * Replicas on one database: a commit's NOTIFY names its writer, a process running the workers dispatches its own
 * events (the others leave them to it), and events of a process without workers are dispatched by the others.
 */
describe('outbox dispatch across processes', () => {
  const REDIS_PREFIX = `${process.env.REDIS_PREFIX}-outbox-dispatch`;
  // Declared before the suite start so these close before the first app.
  afterAll(async () => {
    await b?.close();
    await apiOnly?.close();
    await listener?.end();
  });
  const suite = useTestApp({ database: 'outbox_dispatch', env: { REDIS_PREFIX }, tenants: ['t'] });
  let a: TestApp;
  let b: TestApp;
  let apiOnly: TestApp;
  let listener: Client;
  const payloads: string[] = [];

  beforeAll(async () => {
    a = suite.app;
    b = await startTestApp({ DATABASE_URL: suite.databaseUrl, REDIS_PREFIX });
    apiOnly = await startTestApp({ DATABASE_URL: suite.databaseUrl, REDIS_PREFIX, RUN_WORKERS: 'false' });
    listener = new Client({ connectionString: suite.databaseUrl });
    await listener.connect();
    listener.on('notification', (n) => payloads.push(n.payload ?? ''));
    await listener.query(`LISTEN ${OUTBOX_CHANNEL}`);
  });

  const nameOf = (app: TestApp) => app.get<string>(DATABASE_SESSION_NAME);
  /** Counts the dispatches a process's listener starts on a NOTIFY (its periodic sweep is not counted). */
  const dispatchesOf = (app: TestApp) => {
    const spy = jest.spyOn(
      app.get(OutboxListener) as unknown as { dispatch: () => Promise<void> },
      'dispatch',
    );
    return { count: () => spy.mock.calls.length };
  };
  afterEach(() => jest.restoreAllMocks());
  const dispatched = (id: string) =>
    waitFor(
      async () => {
        const [row] = await a
          .get<DataSource>(DataSource)
          .query(`SELECT dispatched_at FROM outbox_events WHERE workspace_id = $1 AND data->>'probe' = $2`, [
            suite.t.workspaceId,
            id,
          ]);
        return row?.dispatched_at ? true : undefined;
      },
      10_000,
      `event ${id} dispatched`,
    );

  it("names each process's database sessions, opens its kept connections, and a commit's NOTIFY names its writer", async () => {
    expect(nameOf(a)).toMatch(/^agent-platform:w:[0-9a-f]{12}$/);
    expect(nameOf(apiOnly)).toMatch(/^agent-platform:a:[0-9a-f]{12}$/);
    expect(nameOf(b)).not.toBe(nameOf(a));
    // Each process opened its kept connections as it started (DATABASE_POOL_MIN), under its own name.
    const sessions: { application_name: string; n: number }[] = await a.get<DataSource>(DataSource).query(
      `SELECT application_name, count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() GROUP BY application_name`,
    );
    const opened = new Map(sessions.map((r) => [r.application_name, r.n]));
    // Named statements are planned with each run's values (a generic plan is never cached).
    const [mode] = await a.get<DataSource>(DataSource).query(`SHOW plan_cache_mode`);
    expect(mode.plan_cache_mode).toBe('force_custom_plan');
    for (const app of [a, b, apiOnly]) {
      expect(app.config.database.poolMin).toBe(2);
      expect(opened.get(nameOf(app))).toBeGreaterThanOrEqual(2);
    }

    payloads.length = 0;
    await emitEvent(a, suite.t, 'conversation_status', { probe: 'named' });
    await waitFor(async () => (payloads.includes(nameOf(a)) ? true : undefined), 5_000, 'notification');
    await dispatched('named');
  });

  it('an event written by a dispatching process is dispatched by it, not by the other replica', async () => {
    const inA = dispatchesOf(a);
    const inB = dispatchesOf(b);
    await emitEvent(a, suite.t, 'conversation_status', { probe: 'own' });
    await dispatched('own');
    await waitFor(async () => (inA.count() > 0 ? true : undefined), 5_000, "the writer's dispatch");
    expect(inB.count()).toBe(0);
  });

  it('an event written by a process without workers is dispatched by the others at once', async () => {
    const inA = dispatchesOf(a);
    const inB = dispatchesOf(b);
    await emitEvent(apiOnly, suite.t, 'conversation_status', { probe: 'api-only' });
    await dispatched('api-only');
    await waitFor(
      async () => (inA.count() > 0 && inB.count() > 0 ? true : undefined),
      5_000,
      'both dispatchers woken',
    );
  });
});
