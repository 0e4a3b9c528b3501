import { DataSource } from 'typeorm';
import { OutboundClock } from '@/modules/outbound/engine/outbound-clock';
import { sandboxLine } from '../factories/call.factory';
import { addMembers, contactsWith, createCampaign, createPool, tasksOf } from '../factories/outbound.factory';
import { createWebhook } from '../factories/webhook.factory';
import { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { TestApp } from '../setup/test-app';
import { waitFor } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

const HOUR = 3600_000;
type Row = Record<string, any>;

jest.setTimeout(60_000);

/**
 * The events of outbound moves (`campaign_status`, `task_status`, one per task on bulk moves, written with the move),
 * detaching a pool, expiry of waiting tasks, a due task whose window closed before dispatch, and another workspace
 * seeing none of it. Campaigns start in a year (nothing is dialled) unless a test sets the outbound clock.
 */
describe('outbound events', () => {
  // Declared before the suite start so the clock is reset while the app still runs.
  afterAll(async () => {
    await clock.reset();
  });
  // Dispatchers claim every workspace's due tasks: other suites' apps must not see these, nor this clock.
  const suite = useTestApp({
    servers: { rx: () => WebhookReceiver.start() },
    database: 'outbound_events',
    env: { REDIS_PREFIX: `${process.env.REDIS_PREFIX}-outbound-events`, SANDBOX_ANSWER_DELAY_MS: '117' },
    tenants: ['t', 'other'],
  });
  let app: TestApp;
  let t: TestTenant;
  let other: TestTenant;
  let db: DataSource;
  let clock: OutboundClock;
  let line: { agentId: string; numberId: string; number: string };
  const nextYear = () => new Date(Date.now() + 365 * 24 * HOUR).toISOString();

  /** A campaign of `t` on the sandbox line, starting in a year unless `body` says otherwise. */
  const campaignOf = (body: object) =>
    createCampaign(t, { agent_uuid: line.agentId, start_at: nextYear(), ...body });
  const poolWith = async (count: number, body: object = {}) => {
    const pool = await createPool(t, body);
    const members = await contactsWith(t, Array<undefined>(count).fill(undefined));
    await addMembers(
      t,
      pool.uuid,
      members.map((m) => m.uuid),
    );
    return { pool, members };
  };
  const move = async (campaignId: string, action: string) =>
    (await t.http.post(`/api/v1/campaigns/${campaignId}/${action}`).expect(200)).body.data as Row;

  /** The campaign's `campaign_status` rows in the outbox of `workspaceId`, oldest first. */
  const campaignEvents = (campaignId: string, workspaceId = t.workspaceId): Promise<Row[]> =>
    db.query(
      `SELECT id, agent_id, data FROM outbox_events
        WHERE workspace_id = $1 AND type = 'campaign_status' AND data->'campaign'->>'uuid' = $2
        ORDER BY created_at, id`,
      [workspaceId, campaignId],
    );
  /** `task_status` rows in the outbox of `t` for the tasks matching `key = value` (of the task in the payload). */
  const taskEvents = (key: 'campaign_uuid' | 'uuid', value: string): Promise<Row[]> =>
    db.query(
      `SELECT id, data->'task'->>'uuid' AS task, data->'task'->>'pool_uuid' AS pool,
              data->>'previous_status' AS previous, data->'task'->>'status' AS status, data
         FROM outbox_events
        WHERE workspace_id = $1 AND type = 'task_status' AND data->'task'->>$2 = $3
        ORDER BY created_at, id`,
      [t.workspaceId, key, value],
    );
  /** The rows of `after` that `before` did not have (the events a move wrote). */
  const since = (before: Row[], after: Row[]) => {
    const seen = new Set(before.map((r) => r.id));
    return after.filter((r) => !seen.has(r.id));
  };
  /** How many events made each move, as `previous>status` (`null>scheduled` for a new task). */
  const movesOf = (rows: Row[]) => {
    const out: Record<string, number> = {};
    for (const r of rows) {
      const k = `${r.previous}>${r.status}`;
      out[k] = (out[k] ?? 0) + 1;
    }
    return out;
  };
  /** Each task's events, as its `previous>status` moves in the order given. */
  const perTask = (rows: Row[]) => {
    const out: Record<string, string[]> = {};
    for (const r of rows) (out[r.task] ??= []).push(`${r.previous}>${r.status}`);
    return out;
  };
  const statusesOf = async (campaignId: string) =>
    (
      await db.query(
        `SELECT status, count(*)::int AS n FROM outbound_tasks WHERE workspace_id = $1 AND campaign_id = $2
          GROUP BY status`,
        [t.workspaceId, campaignId],
      )
    ).reduce((acc: Record<string, number>, r: Row) => ({ ...acc, [r.status]: r.n }), {});
  /** Waits (reading the table, not the API) until the task's row satisfies `condition`; answers the row. */
  const taskRowWhere = (id: string, condition: string, timeoutMs = 15_000) =>
    waitFor(
      async () => {
        const rows: Row[] = await db.query(
          `SELECT * FROM outbound_tasks WHERE workspace_id = $1 AND id = $2 AND ${condition}`,
          [t.workspaceId, id],
        );
        return rows[0];
      },
      timeoutMs,
      `task ${id}: ${condition}`,
    );

  beforeAll(async () => {
    ({ app, t, other } = suite);
    db = app.get<DataSource>(DataSource);
    clock = app.get<OutboundClock>(OutboundClock);
    await clock.reset();
    line = await sandboxLine(t);
  });

  it('writes campaign_status for start, pause, resume and cancel, and one task_status per task moved', async () => {
    const { pool, members } = await poolWith(3);
    const campaign = await campaignOf({ pool_uuids: [pool.uuid] });
    // Creation writes the campaign's first event (no previous status); no task exists yet.
    expect((await campaignEvents(campaign.uuid)).map((e) => e.data.previous_status)).toEqual([null]);
    expect(await taskEvents('campaign_uuid', campaign.uuid)).toEqual([]);

    const expected: Record<string, number> = {};
    const steps: [string, string, string, string, string][] = [
      // action, campaign previous, campaign status, task move written by this action
      ['start', 'draft', 'running', 'null>scheduled', 'scheduled'],
      ['pause', 'running', 'paused', 'scheduled>on_hold', 'on_hold'],
      ['resume', 'paused', 'running', 'on_hold>scheduled', 'scheduled'],
      ['cancel', 'running', 'cancelled', 'scheduled>cancelled', 'cancelled'],
    ];
    for (const [i, [action, previous, status, taskMove, taskStatus]] of steps.entries()) {
      const earlier = await campaignEvents(campaign.uuid);
      const earlierTasks = await taskEvents('campaign_uuid', campaign.uuid);
      const answer = await move(campaign.uuid, action);
      expect(answer.status).toBe(status);
      // Read at once, without waiting: the events are committed with the move the answer reports.
      const events = await campaignEvents(campaign.uuid);
      expect(events).toHaveLength(i + 2);
      const written = since(earlier, events);
      expect(written).toHaveLength(1);
      const last = written[0];
      expect(last.data.previous_status).toBe(previous);
      // The campaign in the payload is the one the move answered (its pools included).
      expect(last.data.campaign).toEqual(answer);
      expect(last.data.campaign).toMatchObject({ uuid: campaign.uuid, status, pool_uuids: [pool.uuid] });
      expect(last.agent_id).toBe(line.agentId);
      // One task_status per task moved, each with the task as it now is.
      expected[taskMove] = (expected[taskMove] ?? 0) + members.length;
      const tasks = await taskEvents('campaign_uuid', campaign.uuid);
      expect(movesOf(tasks)).toEqual(expected);
      expect(await statusesOf(campaign.uuid)).toEqual({ [taskStatus]: members.length });
      const latest = since(earlierTasks, tasks);
      expect(new Set(latest.map((x) => x.task)).size).toBe(members.length);
      expect(latest.map((x) => x.data.task.status)).toEqual(Array(members.length).fill(taskStatus));
    }
    // Each task has exactly the four moves, and the contacts are the pool's members.
    const tasks = await taskEvents('campaign_uuid', campaign.uuid);
    const byTask = perTask(tasks);
    expect(Object.keys(byTask)).toHaveLength(members.length);
    // (Sorted: two moves in the same millisecond would tie on created_at; the steps above proved the order.)
    for (const moves of Object.values(byTask))
      expect([...moves].sort()).toEqual(
        ['null>scheduled', 'scheduled>on_hold', 'on_hold>scheduled', 'scheduled>cancelled'].sort(),
      );
    expect([...new Set(tasks.map((x) => x.data.task.contact_uuid))].sort()).toEqual(
      members.map((m) => m.uuid).sort(),
    );
    // A refused move writes nothing.
    await t.http.post(`/api/v1/campaigns/${campaign.uuid}/resume`).expect(409);
    expect(await campaignEvents(campaign.uuid)).toHaveLength(5);
    expect(await taskEvents('campaign_uuid', campaign.uuid)).toHaveLength(4 * members.length);
  });

  it('pause holds scheduled and pending tasks and resume returns each where it was, one event per task', async () => {
    const base = Date.parse('2027-06-02T12:00:00Z');
    await clock.set(base);
    try {
      // An inactive pool's due tasks become pending and are never claimed.
      const { pool } = await poolWith(3, { is_active: false });
      const campaign = await campaignOf({ pool_uuids: [pool.uuid], start_at: null });
      await move(campaign.uuid, 'start');
      const tasks = await tasksOf(t, `campaign_uuid=${campaign.uuid}`);
      for (const task of tasks) await taskRowWhere(task.uuid, `status = 'pending'`);
      // A new due time puts one back to scheduled (its event too).
      const later = tasks[0].uuid;
      const put = await t.http
        .put(`/api/v1/tasks/${later}`)
        .send({ scheduled_at: new Date(base + 24 * HOUR).toISOString() })
        .expect(200);
      expect(put.body.data.status).toBe('scheduled');
      expect(perTask(await taskEvents('uuid', later))[later]).toEqual([
        'null>scheduled',
        'scheduled>pending',
        'pending>scheduled',
      ]);
      expect(await statusesOf(campaign.uuid)).toEqual({ pending: 2, scheduled: 1 });

      const before = await taskEvents('campaign_uuid', campaign.uuid);
      await move(campaign.uuid, 'pause');
      const afterPause = await taskEvents('campaign_uuid', campaign.uuid);
      const paused = since(before, afterPause);
      expect(movesOf(paused)).toEqual({ 'pending>on_hold': 2, 'scheduled>on_hold': 1 });
      expect(perTask(paused)[later]).toEqual(['scheduled>on_hold']);
      await move(campaign.uuid, 'resume');
      const resumed = since(afterPause, await taskEvents('campaign_uuid', campaign.uuid));
      expect(movesOf(resumed)).toEqual({ 'on_hold>pending': 2, 'on_hold>scheduled': 1 });
      expect(perTask(resumed)[later]).toEqual(['on_hold>scheduled']);
      expect(await statusesOf(campaign.uuid)).toEqual({ pending: 2, scheduled: 1 });
      const cancelled = await taskEvents('campaign_uuid', campaign.uuid);
      await move(campaign.uuid, 'cancel');
      expect(movesOf(since(cancelled, await taskEvents('campaign_uuid', campaign.uuid)))).toEqual({
        'pending>cancelled': 2,
        'scheduled>cancelled': 1,
      });
    } finally {
      await clock.reset();
    }
  });

  it("detaching a pool cancels only that pool's not-started tasks in that campaign; one not attached is 404", async () => {
    const { pool: gone, members: goneMembers } = await poolWith(2);
    const { pool: kept } = await poolWith(2);
    const { pool: never } = await poolWith(1);
    const campaign = await campaignOf({ pool_uuids: [gone.uuid, kept.uuid] });
    // Another campaign with the same pool: its tasks are not this campaign's.
    const elsewhere = await campaignOf({ pool_uuids: [gone.uuid] });
    await move(campaign.uuid, 'start');
    await move(elsewhere.uuid, 'start');
    const goneTasks = await tasksOf(t, `campaign_uuid=${campaign.uuid}&pool_uuid=${gone.uuid}`);
    expect(goneTasks.map((x) => x.contact_uuid).sort()).toEqual(goneMembers.map((m) => m.uuid).sort());
    await t.http.post(`/api/v1/tasks/${goneTasks[0].uuid}/hold`).expect(200);

    const before = await taskEvents('campaign_uuid', campaign.uuid);
    const beforeElsewhere = await taskEvents('campaign_uuid', elsewhere.uuid);
    await t.http.delete(`/api/v1/campaigns/${campaign.uuid}/pools/${gone.uuid}`).expect(200);
    const written = since(before, await taskEvents('campaign_uuid', campaign.uuid));
    expect(movesOf(written)).toEqual({ 'on_hold>cancelled': 1, 'scheduled>cancelled': 1 });
    expect(written.map((x) => x.task).sort()).toEqual(goneTasks.map((x) => x.uuid).sort());
    expect(written.every((x) => x.pool === gone.uuid)).toBe(true);
    const rows: Row[] = await db.query(
      `SELECT pool_id, status, count(*)::int AS n FROM outbound_tasks WHERE workspace_id = $1 AND campaign_id = $2
        GROUP BY pool_id, status ORDER BY pool_id`,
      [t.workspaceId, campaign.uuid],
    );
    expect(rows.map((r) => [r.pool_id, r.status, r.n]).sort()).toEqual(
      [
        [gone.uuid, 'cancelled', 2],
        [kept.uuid, 'scheduled', 2],
      ].sort(),
    );
    expect(await statusesOf(elsewhere.uuid)).toEqual({ scheduled: 2 });
    expect(await taskEvents('campaign_uuid', elsewhere.uuid)).toEqual(beforeElsewhere);
    const detail = await t.http.get(`/api/v1/campaigns/${campaign.uuid}`).expect(200);
    expect(detail.body.data).toMatchObject({
      status: 'running',
      pool_uuids: [kept.uuid],
      stats: { tasks: 4, cancelled: 2, scheduled: 2 },
    });

    // Detached already, or never attached: 404, and nothing moves.
    const again = await t.http.delete(`/api/v1/campaigns/${campaign.uuid}/pools/${gone.uuid}`).expect(404);
    expect(again.body.error).toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    await t.http.delete(`/api/v1/campaigns/${campaign.uuid}/pools/${never.uuid}`).expect(404);
    expect(await taskEvents('campaign_uuid', campaign.uuid)).toHaveLength(before.length + 2);
    await move(campaign.uuid, 'cancel');
    await move(elsewhere.uuid, 'cancel');
  });

  it('a standalone task whose expires_at passes before it is dialled expires (scheduled and on_hold)', async () => {
    const base = Date.parse('2027-06-02T09:30:00Z');
    await clock.set(base);
    try {
      const [a, b] = await contactsWith(t, [undefined, undefined]);
      const standalone = async (contactId: string) =>
        (
          await t.http
            .post('/api/v1/tasks')
            .send({
              title: 'Call back',
              type: 'make_call',
              agent_uuid: line.agentId,
              contact_uuid: contactId,
              scheduled_at: new Date(base + HOUR).toISOString(),
              expires_at: new Date(base + 2 * HOUR).toISOString(),
            })
            .expect(201)
        ).body.data as Row;
      const waiting = await standalone(a.uuid);
      const held = await standalone(b.uuid);
      await t.http.post(`/api/v1/tasks/${held.uuid}/hold`).expect(200);
      // Past its expiry before its due time was ever reached by the dispatcher: expired, never dialled.
      await clock.set(base + 3 * HOUR);
      for (const task of [waiting, held]) await taskRowWhere(task.uuid, `status = 'expired'`);
      expect(perTask(await taskEvents('uuid', waiting.uuid))[waiting.uuid]).toEqual([
        'null>scheduled',
        'scheduled>expired',
      ]);
      expect(perTask(await taskEvents('uuid', held.uuid))[held.uuid]).toEqual([
        'null>scheduled',
        'scheduled>on_hold',
        'on_hold>expired',
      ]);
      const detail = await t.http.get(`/api/v1/tasks/${waiting.uuid}`).expect(200);
      expect(detail.body.data).toMatchObject({ status: 'expired', attempts_count: 0, attempts: [] });
      const calls = await db.query(
        `SELECT count(*)::int AS n FROM calls WHERE workspace_id = $1 AND task_id = ANY($2)`,
        [t.workspaceId, [waiting.uuid, held.uuid]],
      );
      expect(calls[0].n).toBe(0);
    } finally {
      await clock.reset();
    }
  });

  it('a due campaign task whose window closes before dispatch goes back to scheduled at the next opening', async () => {
    const base = Date.parse('2027-06-02T09:30:00Z'); // the window is 09:00–10:00 UTC every day
    await clock.set(base);
    try {
      // Inactive, its pool holds the due tasks at pending until it is made active again.
      const { pool } = await poolWith(2, { is_active: false });
      const campaign = await campaignOf({
        pool_uuids: [pool.uuid],
        start_at: null,
        timezone: 'UTC',
        window: {
          days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
          start_time: '09:00',
          end_time: '10:00',
        },
      });
      await move(campaign.uuid, 'start');
      const [task, expiring] = await tasksOf(t, `campaign_uuid=${campaign.uuid}`);
      for (const x of [task, expiring]) await taskRowWhere(x.uuid, `status = 'pending'`);
      await t.http
        .put(`/api/v1/tasks/${expiring.uuid}`)
        .send({ expires_at: new Date(base + 45 * 60_000).toISOString() })
        .expect(200);

      // 10:30: the window has closed, and the second task's expires_at has passed while it was pending.
      await clock.set(base + HOUR);
      await taskRowWhere(expiring.uuid, `status = 'expired'`);
      expect(perTask(await taskEvents('uuid', expiring.uuid))[expiring.uuid]).toEqual([
        'null>scheduled',
        'scheduled>pending',
        'pending>expired',
      ]);
      // A pass that read the clock before it moved has ended by now.
      await new Promise((r) => setTimeout(r, 500));
      await t.http.put(`/api/v1/pools/${pool.uuid}`).send({ is_active: true }).expect(200);
      const next = '2027-06-03T09:00:00.000Z';
      const row = await taskRowWhere(task.uuid, `status = 'scheduled'`);
      expect(new Date(row.scheduled_at).toISOString()).toBe(next);
      expect(row.attempts).toBe(0);
      const events = await taskEvents('uuid', task.uuid);
      expect(perTask(events)[task.uuid]).toEqual([
        'null>scheduled',
        'scheduled>pending',
        'pending>scheduled',
      ]);
      expect(events[events.length - 1].data.task).toMatchObject({
        status: 'scheduled',
        scheduled_at: next,
        next_attempt_at: next,
        attempts_count: 0,
      });
      const calls = await db.query(
        `SELECT count(*)::int AS n FROM calls WHERE workspace_id = $1 AND task_id = $2`,
        [t.workspaceId, task.uuid],
      );
      expect(calls[0].n).toBe(0);

      // It is due again at that opening (held at pending by the pool, inactive again).
      await t.http.put(`/api/v1/pools/${pool.uuid}`).send({ is_active: false }).expect(200);
      await clock.set(Date.parse(next) - 60_000);
      await new Promise((r) => setTimeout(r, 2500));
      expect((await taskRowWhere(task.uuid, 'true')).status).toBe('scheduled');
      await clock.set(Date.parse(next) + 5_000);
      await taskRowWhere(task.uuid, `status = 'pending'`);
      await move(campaign.uuid, 'cancel');
    } finally {
      await clock.reset();
    }
  });

  it("another workspace reaches neither the campaign's moves nor its tasks, and never sees their events", async () => {
    const rx = suite.rx;
    const events = ['campaign_status', 'task_status'];
    await createWebhook(t, { url: rx.url('/mine'), events });
    await createWebhook(other, { url: rx.url('/theirs'), events });
    const { pool } = await poolWith(2);
    const campaign = await campaignOf({ pool_uuids: [pool.uuid] });
    await move(campaign.uuid, 'start');
    const tasks = await tasksOf(t, `campaign_uuid=${campaign.uuid}`);
    const before = await taskEvents('campaign_uuid', campaign.uuid);

    for (const action of ['pause', 'resume', 'cancel', 'start'])
      await other.http.post(`/api/v1/campaigns/${campaign.uuid}/${action}`).expect(404);
    await other.http.delete(`/api/v1/campaigns/${campaign.uuid}/pools/${pool.uuid}`).expect(404);
    await other.http
      .post(`/api/v1/campaigns/${campaign.uuid}/pools`)
      .send({ pool_uuids: [pool.uuid] })
      .expect(404);
    for (const task of tasks) {
      await other.http.get(`/api/v1/tasks/${task.uuid}`).expect(404);
      await other.http.put(`/api/v1/tasks/${task.uuid}`).send({ priority: 9 }).expect(404);
      for (const action of ['cancel', 'hold', 'release', 'retry'])
        await other.http.post(`/api/v1/tasks/${task.uuid}/${action}`).expect(404);
    }
    expect(await tasksOf(other, `campaign_uuid=${campaign.uuid}`)).toEqual([]);
    // Nothing moved, nothing written.
    expect(await statusesOf(campaign.uuid)).toEqual({ scheduled: 2 });
    expect(await taskEvents('campaign_uuid', campaign.uuid)).toEqual(before);
    expect((await campaignEvents(campaign.uuid)).map((e) => e.data.campaign.status)).toEqual([
      'draft',
      'running',
    ]);
    const detail = await t.http.get(`/api/v1/campaigns/${campaign.uuid}`).expect(200);
    expect(detail.body.data).toMatchObject({ status: 'running', pool_uuids: [pool.uuid] });

    // The owner's moves: its webhook gets every event, the other workspace's none.
    for (const action of ['pause', 'resume', 'cancel']) await move(campaign.uuid, action);
    const mine = (r: { body: string }) => r.body.includes(campaign.uuid);
    // 5 campaign_status (created, started, paused, resumed, cancelled) and 4 task_status per task.
    const delivered = await waitFor(
      async () => {
        const got = rx.at('/mine').filter(mine);
        return got.length >= 5 + 4 * tasks.length ? got : undefined;
      },
      20_000,
      "the owner's deliveries",
    );
    const bodies = delivered.map((r) => JSON.parse(r.body));
    expect(bodies.filter((b) => b.type === 'campaign_status')).toHaveLength(5);
    expect(bodies.filter((b) => b.type === 'task_status')).toHaveLength(4 * tasks.length);
    expect(bodies.every((b) => b.workspace.uuid === t.workspaceId)).toBe(true);
    expect(rx.at('/theirs')).toEqual([]);
    const theirs = await other.http.get('/api/v1/webhooks/deliveries').expect(200);
    expect(theirs.body.data.items).toEqual([]);
    const leaked = await db.query(
      `SELECT count(*)::int AS n FROM outbox_events WHERE workspace_id = $1 AND data::text LIKE $2`,
      [other.workspaceId, `%${campaign.uuid}%`],
    );
    expect(leaked[0].n).toBe(0);
  });
});
