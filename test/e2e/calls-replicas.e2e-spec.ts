import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { REDIS } from '@/common/redis/redis.module';
import { CallInstance } from '@/modules/calls/runtime/call-instance';
import { CallActions } from '@/modules/calls/api/call-actions.service';
import { CallSlots } from '@/modules/calls/runtime/call-slots';
import { CallsRepository } from '@/modules/calls/calls.repository';
import { sandboxDestination, sandboxLine } from '../factories/call.factory';
import { createTenant, TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { TestApp } from '../setup/test-app';
import { ApiProcess, startApiProcess } from '../support/api-process-client';
import { waitFor } from '../support/wait';

/** Two API replicas, each its own OS process, sharing PostgreSQL and Redis: the limit and actions hold across them. */
describe('calls across two API processes', () => {
  // Declared before the suite start so the second replica stops before the first app closes.
  afterAll(async () => {
    await b?.kill();
  });
  const suite = useTestApp({ env: { SANDBOX_ANSWER_DELAY_MS: '100' } });
  let a: TestApp;
  let b: ApiProcess;
  let db: DataSource;

  const liveCount = async (workspaceId: string): Promise<number> =>
    (
      await db.query(
        `SELECT count(*)::int AS n FROM calls WHERE workspace_id = $1 AND status IN ('queued', 'ringing', 'in-progress')`,
        [workspaceId],
      )
    )[0].n;
  const onB = (t: TestTenant) => b.http(t.host, t.token);
  const statusOf = (t: TestTenant, id: string, want: string) =>
    waitFor(
      async () => {
        const r = await t.http.get(`/api/v1/calls/${id}`).expect(200);
        return r.body.data.status === want ? r.body.data : undefined;
      },
      10_000,
      `call ${want}`,
    );

  /** A tenant with a sandbox line, and bodies of calls that ring until the test ends them. */
  const ringingLine = async () => {
    const t = await createTenant(a);
    const line = await sandboxLine(t);
    const body = () => ({
      agent_uuid: line.agentId,
      to: sandboxDestination('0009'),
      ring_timeout_seconds: 120,
    });
    return { t, body };
  };

  // The second replica is started from the first app's configuration, so after it.
  beforeAll(async () => {
    a = suite.app;
    db = a.get<DataSource>(DataSource);
    b = await startApiProcess({
      DATABASE_URL: a.config.database.url,
      REDIS_PREFIX: a.config.redis.prefix,
      STORAGE_DIR: a.config.storageDir,
      ENCRYPTION_KEY: a.config.auth.encryptionKey!,
      SANDBOX_ANSWER_DELAY_MS: '100',
      LOG_LEVEL: 'silent',
    });
  }, 180_000);

  it('60 simultaneous POST /call over both: exactly 50 201 and 10 429 with Retry-After; ending one lets the next in', async () => {
    const { t, body } = await ringingLine();
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) => (i % 2 ? t.http : onB(t)).post('/api/v1/call').send(body())),
    );
    const created = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 429);
    expect({ created: created.length, refused: refused.length }).toEqual({ created: 50, refused: 10 });
    for (const r of refused) {
      expect(r.headers['retry-after']).toBe('5');
      expect(r.body).toEqual({
        success: false,
        message: 'Concurrent call limit reached (50 of 50 active)',
        error: {
          code: 'CONCURRENCY_LIMIT_EXCEEDED',
          details: 'Concurrent call limit reached (50 of 50 active)',
          retryAfter: 5,
        },
      });
    }
    expect(await liveCount(t.workspaceId)).toBe(50);
    expect(await a.get<CallSlots>(CallSlots).count(t.workspaceId)).toBe(50);

    const first = created[0].body.data.uuid as string;
    await statusOf(t, first, 'ringing');
    await onB(t).post(`/api/v1/calls/${first}/simulate`).send({ action: 'hangup' }).expect(200);
    await t.http.post('/api/v1/call').send(body()).expect(201);
    const over = await onB(t).post('/api/v1/call').send(body());
    expect(over.status).toBe(429);
  }, 120_000);

  it('an action posted to the replica that does not own the call is performed by the owner', async () => {
    const t = await createTenant(a);
    const line = await sandboxLine(t);
    const placed = await onB(t)
      .post('/api/v1/call')
      .send({ agent_uuid: line.agentId, to: sandboxDestination() })
      .expect(201);
    const id = placed.body.data.uuid as string;
    await statusOf(t, id, 'in-progress');
    const [row] = await db.query(`SELECT owner_id FROM calls WHERE id = $1`, [id]);
    const mine = a.get<CallInstance>(CallInstance).id;
    expect(row.owner_id).not.toBe(mine);

    // This replica's runtime must not perform it: the owner's must.
    const performedHere = jest.spyOn(a.get<CallActions>(CallActions), 'perform');
    const say = await t.http
      .post(`/api/v1/calls/action/${id}/say`)
      .send({ message: 'From the other replica' })
      .expect(200);
    expect(say.body.data).toMatchObject({ action: 'say', conversation_uuid: id });
    // It had taken effect when the answer arrived.
    const messages = (await t.http.get(`/api/v1/conversations/${id}/messages?per_page=100`).expect(200)).body
      .data.items;
    expect(messages.map((m: { content: string }) => m.content)).toContain('From the other replica');
    const [after] = await db.query(`SELECT owner_id FROM calls WHERE id = $1`, [id]);
    expect(after.owner_id).toBe(row.owner_id);

    // Several actions from this replica keep their order on the owner.
    for (const text of ['one', 'two', 'three'])
      await t.http.post(`/api/v1/calls/action/${id}/say`).send({ message: text }).expect(200);
    const order = (
      await t.http.get(`/api/v1/conversations/${id}/messages?per_page=100`).expect(200)
    ).body.data.items
      .filter((m: { sender: string }) => m.sender === 'agent')
      .map((m: { content: string }) => m.content);
    expect(order.slice(-3)).toEqual(['one', 'two', 'three']);
    expect(performedHere).not.toHaveBeenCalled();
    performedHere.mockRestore();
  }, 120_000);

  it("a killed replica's slots return after reconciliation; its calls pass to a live replica", async () => {
    const { t, body } = await ringingLine();
    const slots = a.get<CallSlots>(CallSlots);
    const placed = await onB(t).post('/api/v1/call').send(body()).expect(201);
    const burst = Promise.allSettled(
      Array.from({ length: 20 }, () => onB(t).post('/api/v1/call').send(body())),
    );
    await new Promise((r) => setTimeout(r, 150));
    await b.kill();
    await burst;
    // What a crash between taking a slot and writing the call leaves behind, made certain here.
    const redis = a.get<Redis>(REDIS);
    for (let i = 0; i < 5; i += 1)
      await redis.zadd(
        `calls:slots:ws:${t.workspaceId}`,
        Date.now() - 60_000,
        `00000000-0000-7000-8000-00000000000${i}`,
      );
    const live = await liveCount(t.workspaceId);
    expect(await slots.count(t.workspaceId)).toBeGreaterThanOrEqual(live + 5);

    await slots.rebuild(await a.get<CallsRepository>(CallsRepository).liveCallsOfAllWorkspaces(), 0);
    expect(await slots.count(t.workspaceId)).toBe(live);
    const free = 50 - live;
    const more = await Promise.all(
      Array.from({ length: free }, () => t.http.post('/api/v1/call').send(body())),
    );
    expect(more.map((r) => r.status)).toEqual(Array(free).fill(201));
    expect((await t.http.post('/api/v1/call').send(body())).status).toBe(429);

    // The dead replica owned this call; once its heartbeat is gone, an action here takes it over and performs it.
    const id = placed.body.data.uuid as string;
    const [row] = await db.query(`SELECT owner_id FROM calls WHERE id = $1`, [id]);
    const instance = a.get<CallInstance>(CallInstance);
    await waitFor(
      async () => ((await instance.isAlive(row.owner_id)) ? undefined : true),
      15_000,
      'heartbeat expiry',
    );
    await t.http.post(`/api/v1/calls/action/${id}/hangup`).send({}).expect(200);
    expect((await t.http.get(`/api/v1/calls/${id}`)).body.data).toMatchObject({ status: 'canceled' });
    const [after] = await db.query(`SELECT owner_id FROM calls WHERE id = $1`, [id]);
    expect(after.owner_id).toBe(instance.id);
  }, 120_000);
});
