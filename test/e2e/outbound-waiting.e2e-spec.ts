import { DataSource } from 'typeorm';
import { OutboundClock } from '@/modules/outbound/engine/outbound-clock';
import { sandboxDestination, sandboxLine } from '../factories/call.factory';
import { createContact } from '../factories/contact.factory';
import { addMembers, ALWAYS, createPool, createRule, tasksOf } from '../factories/outbound.factory';
import { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { client, TestApp } from '../setup/test-app';

const DEFAULT_WINDOW = {
  days: ['mon', 'tue', 'wed', 'thu', 'fri'],
  start_time: '09:00',
  end_time: '18:00',
  use_contact_timezone: true,
};
/** A Wednesday, eight minutes past midnight UTC: outside the default window. */
const NIGHT = Date.parse('2026-12-02T00:08:00Z');

/**
 * A running campaign says when it next dials and why it waits (`next_dial_at`, `waiting_reason`), in its answer and
 * its list item, with the window it dials in (`effective_window`). The outbound clock is set, so windows are met at
 * known times; task states that need calls in progress are written in the table, as the dispatcher leaves them.
 */
describe('outbound: when a campaign next dials and why it waits', () => {
  // Declared before the suite start so the clock is reset while the app still runs.
  afterAll(async () => {
    await clock.reset();
  });
  // Its own database and Redis prefix: its clock and dispatcher must not reach other suites' campaigns.
  const suite = useTestApp({
    database: 'outbound_waiting',
    env: { REDIS_PREFIX: `${process.env.REDIS_PREFIX}-outbound-waiting`, SANDBOX_ANSWER_DELAY_MS: '50' },
    tenants: ['t'],
  });
  let app: TestApp;
  let t: TestTenant;
  let db: DataSource;
  let clock: OutboundClock;
  let line: { agentId: string };

  const members = async (n: number, pool: string, lastFour = '7777') => {
    const out: Record<string, any>[] = [];
    for (let i = 0; i < n; i++)
      out.push(await createContact(t, { phone_number: sandboxDestination(lastFour) }));
    await addMembers(
      t,
      pool,
      out.map((c) => c.uuid),
    );
    return out;
  };
  const newCampaign = async (body: object) => {
    const res = await t.http
      .post('/api/v1/campaigns')
      .send({ name: 'Waiting', agent_uuid: line.agentId, timezone: 'UTC', ...body });
    expect(res.status).toBe(201);
    return res.body.data as Record<string, any>;
  };
  const act = async (id: string, action: string) =>
    (await t.http.post(`/api/v1/campaigns/${id}/${action}`).expect(200)).body.data;
  const read = async (id: string) => (await t.http.get(`/api/v1/campaigns/${id}`).expect(200)).body.data;
  const listed = async (id: string) => {
    const res = await t.http.get('/api/v1/campaigns?per_page=100').expect(200);
    return res.body.data.items.find((c: { uuid: string }) => c.uuid === id);
  };
  const waiting = (c: Record<string, any>) => ({
    next_dial_at: c.next_dial_at,
    waiting_reason: c.waiting_reason,
  });

  beforeAll(async () => {
    ({ app, t } = suite);
    db = app.get<DataSource>(DataSource);
    clock = app.get<OutboundClock>(OutboundClock);
    await clock.set(NIGHT);
    line = await sandboxLine(t);
  });

  it('started outside its window: dials at the opening, says so in its answer, read and list item', async () => {
    const pool = await createPool(t, { name: 'Night owls' });
    await members(2, pool.uuid);
    const draft = await newCampaign({ pool_uuids: [pool.uuid] });
    expect(draft).toMatchObject({
      status: 'draft',
      window: null,
      effective_window: DEFAULT_WINDOW,
      next_dial_at: null,
      waiting_reason: null,
    });
    const outside = { next_dial_at: '2026-12-02T09:00:00.000Z', waiting_reason: 'outside_window' };
    const started = await act(draft.uuid, 'start');
    expect(started.status).toBe('running');
    expect(waiting(started)).toEqual(outside);
    const detail = await read(draft.uuid);
    expect(waiting(detail)).toEqual(outside);
    expect(detail.effective_window).toEqual(DEFAULT_WINDOW);
    expect(detail.effective_policy.window).toEqual(detail.effective_window);
    const item = await listed(draft.uuid);
    expect(waiting(item)).toEqual(outside);
    expect(item.effective_window).toEqual(DEFAULT_WINDOW);

    expect(waiting(await act(draft.uuid, 'pause'))).toEqual({ next_dial_at: null, waiting_reason: 'paused' });
    expect(waiting(await listed(draft.uuid))).toEqual({ next_dial_at: null, waiting_reason: 'paused' });
    expect(waiting(await act(draft.uuid, 'resume'))).toEqual(outside);
    const cancelled = await act(draft.uuid, 'cancel');
    expect(waiting(cancelled)).toEqual({ next_dial_at: null, waiting_reason: null });
  });

  it("merges the rule's window into effective_window and waits for start_at before anything else", async () => {
    const rule = await createRule(t, { days: ['sat', 'sun'], start_time: '10:00' });
    const pool = await createPool(t);
    await members(1, pool.uuid);
    const ruled = await newCampaign({
      pool_uuids: [pool.uuid],
      rule_uuid: rule.uuid,
      window: { end_time: '12:00', use_contact_timezone: false },
    });
    const effective = {
      days: ['sat', 'sun'],
      start_time: '10:00',
      end_time: '12:00',
      use_contact_timezone: false,
    };
    expect(ruled.effective_window).toEqual(effective);
    expect((await listed(ruled.uuid)).effective_window).toEqual(effective);
    // Saturday 10:00 is the first opening.
    expect(waiting(await act(ruled.uuid, 'start'))).toEqual({
      next_dial_at: '2026-12-05T10:00:00.000Z',
      waiting_reason: 'outside_window',
    });

    const later = await createPool(t);
    await members(1, later.uuid);
    // Starts on Saturday: the default window first opens on Monday 09:00.
    const scheduled = await newCampaign({ pool_uuids: [later.uuid], start_at: '2026-12-05T10:00:00.000Z' });
    expect(waiting(await act(scheduled.uuid, 'start'))).toEqual({
      next_dial_at: '2026-12-07T09:00:00.000Z',
      waiting_reason: 'before_start',
    });
    // A campaign that ends before its next dial has no time to give.
    await t.http
      .put(`/api/v1/campaigns/${scheduled.uuid}`)
      .send({ end_at: '2026-12-06T00:00:00.000Z' })
      .expect(200);
    expect(waiting(await read(scheduled.uuid))).toEqual({
      next_dial_at: null,
      waiting_reason: 'before_start',
    });
  });

  it('due tasks wait for a slot (campaign or pool); only inactive pools hold tasks; a free slot dials now', async () => {
    const pool = await createPool(t, { type: 'Parallel', is_active: false });
    const [a, b] = await members(2, pool.uuid);
    const campaign = await newCampaign({ pool_uuids: [pool.uuid], window: ALWAYS, max_concurrency: 1 });
    expect(waiting(await act(campaign.uuid, 'start'))).toEqual({
      next_dial_at: null,
      waiting_reason: 'pools_inactive',
    });
    // One call in progress, the other task due: the campaign's only slot is taken.
    const now = await clock.now();
    await db.query(
      `UPDATE outbound_tasks SET status = CASE WHEN contact_id = $3 THEN 'in_progress' ELSE 'pending' END,
              scheduled_at = $4
        WHERE workspace_id = $1 AND campaign_id = $2`,
      [t.workspaceId, campaign.uuid, a.uuid, new Date(now - 60_000)],
    );
    await t.http.put(`/api/v1/pools/${pool.uuid}`).send({ is_active: true }).expect(200);
    const full = { next_dial_at: null, waiting_reason: 'concurrency' };
    expect(waiting(await read(campaign.uuid))).toEqual(full);
    expect(waiting(await listed(campaign.uuid))).toEqual(full);
    // FIFO: one live task per pool, so more campaign slots still leave the due task waiting.
    await t.http.put(`/api/v1/pools/${pool.uuid}`).send({ type: 'FIFO' }).expect(200);
    const more = await t.http
      .put(`/api/v1/campaigns/${campaign.uuid}`)
      .send({ max_concurrency: 5 })
      .expect(200);
    expect(waiting(more.body.data)).toEqual(full);
    const [due] = await tasksOf(t, `campaign_uuid=${campaign.uuid}&contact_uuid=${b.uuid}`);
    expect(due.status).toBe('pending');

    // Tasks due at once with free slots: dialling now (its time, no reason).
    const open = await createPool(t);
    await members(1, open.uuid, '0004');
    const now2 = await clock.now();
    const dialling = await act(
      (await newCampaign({ pool_uuids: [open.uuid], window: ALWAYS })).uuid,
      'start',
    );
    expect(dialling.waiting_reason).toBeNull();
    expect(Date.parse(dialling.next_dial_at)).toBeGreaterThanOrEqual(now2);
    expect(Date.parse(dialling.next_dial_at)).toBeLessThanOrEqual((await clock.now()) + 1000);
  });

  it('says retry_interval, daily_cap and no_due_tasks from the next task and its attempts', async () => {
    const pool = await createPool(t, { is_active: false });
    const [c] = await members(1, pool.uuid);
    const campaign = await newCampaign({ pool_uuids: [pool.uuid], window: ALWAYS });
    await act(campaign.uuid, 'start');
    const now = await clock.now();
    const due = new Date(now + 2 * 3600_000);
    const [task] = await tasksOf(t, `campaign_uuid=${campaign.uuid}&contact_uuid=${c.uuid}`);
    // One busy attempt today (UTC, the contact has no zone): retried in two hours, within the window. Written as
    // the retry leaves it (`scheduled`): a dispatcher pass since the start may have made it `pending`.
    await db.query(
      `UPDATE outbound_tasks SET status = 'scheduled', scheduled_at = $3, attempts = 1, last_outcome = 'busy',
              max_per_day = 2
        WHERE workspace_id = $1 AND id = $2`,
      [t.workspaceId, task.uuid, due],
    );
    await db.query(
      `INSERT INTO outbound_task_attempts (id, workspace_id, task_id, number, outcome, local_day, started_at, ended_at)
       VALUES (gen_random_uuid(), $1, $2, 1, 'busy', $3, $4, $4)`,
      [t.workspaceId, task.uuid, '2026-12-02', new Date(now - 60_000)],
    );
    await t.http.put(`/api/v1/pools/${pool.uuid}`).send({ is_active: true }).expect(200);
    const onTask = (sql: string) => db.query(sql, [t.workspaceId, task.uuid]);
    const dueFor = (reason: string) => ({ next_dial_at: due.toISOString(), waiting_reason: reason });
    expect(waiting(await read(campaign.uuid))).toEqual(dueFor('retry_interval'));
    // The day's cap of one call is used: waiting for the next day.
    await onTask(`UPDATE outbound_tasks SET max_per_day = 1 WHERE workspace_id = $1 AND id = $2`);
    expect(waiting(await listed(campaign.uuid))).toEqual(dueFor('daily_cap'));
    // No attempt yet, due later for no other reason (a time set for it).
    await onTask(`DELETE FROM outbound_task_attempts WHERE workspace_id = $1 AND task_id = $2`);
    await onTask(`UPDATE outbound_tasks SET attempts = 0 WHERE workspace_id = $1 AND id = $2`);
    expect(waiting(await read(campaign.uuid))).toEqual(dueFor('no_due_tasks'));
  });

  it('documents the fields and the default window in OpenAPI', async () => {
    const doc = (await client(app.url, 'localhost').get('/docs/openapi.json').expect(200)).body;
    const schemas = doc.components?.schemas ?? {};
    const create = JSON.stringify(schemas.CreateCampaignDto);
    expect(create).toContain('mon, tue, wed, thu, fri 09:00–18:00');
    const response = schemas.CampaignResponse.properties;
    expect(response.next_dial_at).toMatchObject({ nullable: true });
    expect(response.waiting_reason.enum).toEqual(
      expect.arrayContaining(['outside_window', 'daily_cap', 'concurrency', 'paused']),
    );
    expect(response.effective_window).toBeDefined();
  });
});
