import { DataSource } from 'typeorm';
import { sandboxLine } from '../factories/call.factory';
import { createContact } from '../factories/contact.factory';
import {
  addMembers,
  ALWAYS,
  contactsWith,
  createCampaign as createAnyCampaign,
  createPool,
  createRule,
  tasksOf,
} from '../factories/outbound.factory';
import { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { TestApp } from '../setup/test-app';
import { MISSING } from '../support/ids';
import { waitFor } from '../support/wait';

/** Pools, rules, campaigns and tasks through the API: shapes, transitions and 409s (campaigns start in a year: no dialling). */
describe('outbound: pools, rules, campaigns, tasks', () => {
  const suite = useTestApp({ env: { SANDBOX_ANSWER_DELAY_MS: '121' }, tenants: ['t', 'other'] });
  let app: TestApp;
  let t: TestTenant;
  let other: TestTenant;
  let line: { agentId: string; numberId: string; number: string };
  let db: DataSource;
  const nextYear = new Date(Date.now() + 365 * 24 * 3600_000).toISOString();
  const createCampaign = (tenant: TestTenant, body: object) =>
    createAnyCampaign(tenant, { start_at: nextYear, ...body });

  beforeAll(async () => {
    ({ app, t, other } = suite);
    db = app.get<DataSource>(DataSource);
    line = await sandboxLine(t);
  });

  it('creates, lists, changes and deletes pools; members are added, skipped, reported and listed', async () => {
    const res = await t.http.post('/api/v1/pools').send({ name: 'Renewals', type: 'Parallel' }).expect(201);
    expect(res.body.message).toBe('Pool created successfully');
    const pool = res.body.data;
    expect(pool).toMatchObject({
      name: 'Renewals',
      type: 'Parallel',
      max_parallel_items: 10,
      max_retries: 3,
      is_active: true,
      contacts_count: 0,
    });
    const [a, b] = await contactsWith(t, [undefined, undefined]);
    const added = await addMembers(t, pool.uuid, [a.uuid, b.uuid, a.uuid, MISSING], 7);
    expect(added.message).toBe('2 contact(s) added to pool, 0 task(s) created across 0 running campaign(s).');
    expect(added.data).toEqual({
      pool_uuid: pool.uuid,
      contacts_added: 2,
      contacts_skipped: 0,
      contact_uuids_not_found: [MISSING],
      tasks_created: 0,
      running_campaign_uuids: [],
    });
    const again = await addMembers(t, pool.uuid, [a.uuid]);
    expect(again.data).toMatchObject({ contacts_added: 0, contacts_skipped: 1 });
    const members = await t.http.get(`/api/v1/pools/${pool.uuid}/contacts`).expect(200);
    expect(members.body.data.items).toHaveLength(2);
    expect(members.body.data.items[0]).toMatchObject({
      contact_uuid: a.uuid,
      status: 'Pending',
      priority: 7,
    });
    const found = await t.http.get(`/api/v1/pools?search=renew&type=Parallel`).expect(200);
    expect(found.body.data.items.map((p: { uuid: string }) => p.uuid)).toContain(pool.uuid);
    const put = await t.http.put(`/api/v1/pools/${pool.uuid}`).send({ type: 'LIFO' }).expect(200);
    expect(put.body.data).toMatchObject({ type: 'LIFO', contacts_count: 2, name: 'Renewals' });
    const copy = await t.http.post(`/api/v1/pools/${pool.uuid}/duplicate`).send({}).expect(201);
    expect(copy.body.data).toMatchObject({ name: 'Renewals (copy)', contacts_copied: 2, contacts_count: 2 });
    const removed = await t.http.delete(`/api/v1/pools/${pool.uuid}/contacts/${b.uuid}`).expect(200);
    expect(removed.body.data).toEqual({ contact_uuid: b.uuid, tasks_cancelled: 0 });
    await t.http.delete(`/api/v1/pools/${pool.uuid}/contacts/${b.uuid}`).expect(404);
    await t.http.delete(`/api/v1/pools/${copy.body.data.uuid}`).expect(200);
    await t.http.get(`/api/v1/pools/${copy.body.data.uuid}`).expect(404);
  });

  it('validates pools and rules', async () => {
    const short = await t.http.post('/api/v1/pools').send({ name: 'ab' }).expect(422);
    expect(short.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'name' });
    const missing = await t.http.post('/api/v1/pools').send({}).expect(422);
    expect(missing.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'name' });
    await t.http.post('/api/v1/pools').send({ name: 'Pool', max_parallel_items: 101 }).expect(422);
    const badTime = await t.http
      .post('/api/v1/rules')
      .send({ name: 'Bad', start_time: '18:00', end_time: '09:00' });
    expect(badTime.status).toBe(422);
    expect(badTime.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'end_time' });
    const text = await createRule(t, { type: 'text', max_calls_per_day: 5, max_total_calls: 9 });
    expect(text).toMatchObject({ type: 'text', max_calls_per_day: 1, max_total_calls: 1 });
    const rule = await createRule(t);
    expect(rule).toMatchObject({
      type: 'call',
      max_calls_per_day: 3,
      max_total_calls: 10,
      retry_interval_minutes: 120,
      retry_strategy: 'fixed',
      retry_on: ['busy', 'no-answer'],
      days: ['mon', 'tue', 'wed', 'thu', 'fri'],
      start_time: '09:00',
      end_time: '18:00',
      dnc_check: true,
    });
    const put = await t.http
      .put(`/api/v1/rules/${rule.uuid}`)
      .send({ retry_strategy: 'exponential' })
      .expect(200);
    expect(put.body.data).toMatchObject({ retry_strategy: 'exponential', start_time: '09:00' });
  });

  it('lists rules filtered by type and by a search in the name, and refuses a bad filter', async () => {
    const sms = await createRule(t, { name: 'Zephyr texts 50%', type: 'text' });
    const calls = await createRule(t, { name: 'Zephyr calls' });
    const evening = await createRule(t, { name: 'Evening calls' });
    const uuids = async (query: string) => {
      const res = await t.http.get(`/api/v1/rules?per_page=100&${query}`).expect(200);
      return {
        items: res.body.data.items as { uuid: string; type: string }[],
        total: res.body.data.pagination.total,
      };
    };
    const texts = await uuids('type=text');
    expect(texts.items.every((r) => r.type === 'text')).toBe(true);
    expect(texts.items.map((r) => r.uuid)).toContain(sms.uuid);
    expect(texts.total).toBe(texts.items.length);
    const zephyr = await uuids('search=ZEPHYR');
    expect(zephyr.items.map((r) => r.uuid)).toEqual([calls.uuid, sms.uuid]);
    expect(zephyr.total).toBe(2);
    expect((await uuids('search=zephyr&type=call')).items.map((r) => r.uuid)).toEqual([calls.uuid]);
    expect((await uuids('search=50%25')).items.map((r) => r.uuid)).toEqual([sms.uuid]);
    expect((await uuids('search=_')).items).toEqual([]);
    expect((await uuids('type=call')).items.map((r) => r.uuid)).toEqual(
      expect.arrayContaining([calls.uuid, evening.uuid]),
    );
    const bad = await t.http.get('/api/v1/rules?type=sms').expect(422);
    expect(bad.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'type' });
    const long = await t.http.get(`/api/v1/rules?search=${'x'.repeat(201)}`).expect(422);
    expect(long.body.error).toMatchObject({ field: 'search' });
  });

  it("refuses a window that, merged with the rule's or the default times, ends before it starts", async () => {
    const rule = await createRule(t); // 09:00–18:00
    const late = await createRule(t, { start_time: '08:00', end_time: '09:30' });
    const campaigns = async () =>
      (
        await db.query(
          `SELECT count(*)::int AS n FROM outbound_campaigns WHERE workspace_id = $1 AND name = 'Evening'`,
          [t.workspaceId],
        )
      )[0].n;
    const evening = await t.http.post('/api/v1/campaigns').send({
      name: 'Evening',
      agent_uuid: line.agentId,
      rule_uuid: rule.uuid,
      window: { start_time: '19:00' },
    });
    expect(evening.status).toBe(422);
    expect(evening.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'window.start_time' });
    const early = await t.http.post('/api/v1/campaigns').send({
      name: 'Evening',
      agent_uuid: line.agentId,
      window: { end_time: '08:00' },
    });
    expect(early.status).toBe(422);
    expect(early.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'window.end_time' });
    expect(await campaigns()).toBe(0);

    const campaign = await createCampaign(t, {
      agent_uuid: line.agentId,
      rule_uuid: rule.uuid,
      window: { start_time: '10:00' },
    });
    const put = await t.http
      .put(`/api/v1/campaigns/${campaign.uuid}`)
      .send({ window: { start_time: '18:00' } });
    expect(put.status).toBe(422);
    expect(put.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'window.start_time' });
    const assign = await t.http.put(`/api/v1/campaigns/${campaign.uuid}/rule`).send({ rule_uuid: late.uuid });
    expect(assign.status).toBe(422);
    expect(assign.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'window.start_time' });
    const kept = await t.http.get(`/api/v1/campaigns/${campaign.uuid}`).expect(200);
    expect(kept.body.data).toMatchObject({ rule_uuid: rule.uuid, window: { start_time: '10:00' } });
    // The rule in use cannot move its end before the campaign's start either; other rule changes go through.
    const ruled = await t.http.put(`/api/v1/rules/${rule.uuid}`).send({ end_time: '09:30' });
    expect(ruled.status).toBe(422);
    expect(ruled.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'end_time' });
    expect((await t.http.get(`/api/v1/rules/${rule.uuid}`).expect(200)).body.data.end_time).toBe('18:00');
    await t.http.put(`/api/v1/rules/${rule.uuid}`).send({ end_time: '17:00' }).expect(200);
  });

  it('gives a draft campaign no tasks; start makes one per member, a contact in two pools once', async () => {
    const first = await createPool(t);
    const second = await createPool(t);
    const [a, b, c] = await contactsWith(t, [undefined, undefined, undefined]);
    await addMembers(t, first.uuid, [a.uuid, b.uuid]);
    await addMembers(t, second.uuid, [b.uuid, c.uuid]);
    const campaign = await createCampaign(t, {
      agent_uuid: line.agentId,
      pool_uuids: [first.uuid, second.uuid],
    });
    expect(campaign).toMatchObject({
      status: 'draft',
      channel: 'call',
      max_concurrency: 10,
      timezone: 'UTC',
    });
    expect(campaign.pool_uuids).toEqual([first.uuid, second.uuid]);
    const draftAdd = await addMembers(t, first.uuid, [(await createContact(t)).uuid]);
    expect(draftAdd.data).toMatchObject({ contacts_added: 1, tasks_created: 0, running_campaign_uuids: [] });
    expect(await tasksOf(t, `campaign_uuid=${campaign.uuid}`)).toHaveLength(0);

    const started = await t.http.post(`/api/v1/campaigns/${campaign.uuid}/start`).expect(200);
    expect(started.body.data.status).toBe('running');
    const tasks = await tasksOf(t, `campaign_uuid=${campaign.uuid}`);
    expect(tasks).toHaveLength(4);
    const ofB = tasks.filter((x) => x.contact_uuid === b.uuid);
    expect(ofB).toHaveLength(1);
    expect(ofB[0]).toMatchObject({ pool_uuid: first.uuid, status: 'scheduled', type: 'make_call' });

    const d = await createContact(t);
    const live = await addMembers(t, second.uuid, [d.uuid, a.uuid]);
    expect(live.message).toBe('2 contact(s) added to pool, 1 task(s) created across 1 running campaign(s).');
    expect(live.data).toMatchObject({
      contacts_added: 2,
      tasks_created: 1,
      running_campaign_uuids: [campaign.uuid],
    });
    const rows = await db.query(
      `SELECT count(*)::int AS n FROM outbound_tasks WHERE workspace_id = $1 AND campaign_id = $2`,
      [t.workspaceId, campaign.uuid],
    );
    expect(rows[0].n).toBe(5);

    const detail = await t.http.get(`/api/v1/campaigns/${campaign.uuid}`).expect(200);
    expect(detail.body.data.stats).toMatchObject({ tasks: 5, scheduled: 5, attempts: 0 });
    expect(detail.body.data.effective_policy).toMatchObject({
      window: { ...ALWAYS, use_contact_timezone: true },
      retry: { max_attempts: 4, interval_minutes: 120, strategy: 'fixed', on: ['busy', 'no-answer'] },
    });
  });

  it('gives a member removed and added again a new task, never two live ones for one contact', async () => {
    const pool = await createPool(t);
    const second = await createPool(t);
    const [a] = await contactsWith(t, [undefined]);
    await addMembers(t, pool.uuid, [a.uuid]);
    const campaign = await createCampaign(t, {
      agent_uuid: line.agentId,
      pool_uuids: [pool.uuid, second.uuid],
    });
    await t.http.post(`/api/v1/campaigns/${campaign.uuid}/start`).expect(200);
    const [first] = await tasksOf(t, `campaign_uuid=${campaign.uuid}`);
    const removed = await t.http.delete(`/api/v1/pools/${pool.uuid}/contacts/${a.uuid}`).expect(200);
    expect(removed.body.data.tasks_cancelled).toBe(1);

    const again = await addMembers(t, pool.uuid, [a.uuid]);
    expect(again.data).toMatchObject({ contacts_added: 1, tasks_created: 1 });
    const tasks = await tasksOf(t, `campaign_uuid=${campaign.uuid}&contact_uuid=${a.uuid}`);
    expect(tasks.map((x) => [x.uuid === first.uuid, x.status]).sort()).toEqual([
      [false, 'scheduled'],
      [true, 'cancelled'],
    ]);
    const members = await t.http.get(`/api/v1/pools/${pool.uuid}/contacts`).expect(200);
    expect(members.body.data.items[0]).toMatchObject({ contact_uuid: a.uuid, status: 'Scheduled' });
    // The contact has a live task: another pool of the campaign adds none.
    const elsewhere = await addMembers(t, second.uuid, [a.uuid]);
    expect(elsewhere.data).toMatchObject({ contacts_added: 1, tasks_created: 0 });
    // An ended task of the contact retried while it has a live one would be a second: 409, nothing moves.
    await db.query(`UPDATE outbound_tasks SET status = 'failed' WHERE workspace_id = $1 AND id = $2`, [
      t.workspaceId,
      first.uuid,
    ]);
    const retry = await t.http.post(`/api/v1/tasks/${first.uuid}/retry`).expect(409);
    expect(retry.body.message).toBe('The contact has another task in this campaign that has not ended');
    expect((await t.http.get(`/api/v1/tasks/${first.uuid}`).expect(200)).body.data.status).toBe('failed');
    // A contact whose task has ended other than by a cancel (called, failed, expired) is not dialled again in the
    // campaign by being added again: `retry` is how it is tried again.
    const [live] = (await tasksOf(t, `campaign_uuid=${campaign.uuid}&contact_uuid=${a.uuid}`)).filter(
      (x) => x.uuid !== first.uuid,
    );
    await db.query(`UPDATE outbound_tasks SET status = 'completed' WHERE workspace_id = $1 AND id = $2`, [
      t.workspaceId,
      live.uuid,
    ]);
    await t.http.delete(`/api/v1/pools/${pool.uuid}/contacts/${a.uuid}`).expect(200);
    const once = await addMembers(t, pool.uuid, [a.uuid]);
    expect(once.data).toMatchObject({ contacts_added: 1, tasks_created: 0 });
    expect(await tasksOf(t, `campaign_uuid=${campaign.uuid}&contact_uuid=${a.uuid}`)).toHaveLength(2);
    await t.http.post(`/api/v1/campaigns/${campaign.uuid}/cancel`).expect(200);
  });

  it("passes a rule's change to the not-started tasks of running and paused campaigns using it", async () => {
    const rule = await createRule(t, { retry_interval_minutes: 30, retry_on: ['busy'], max_total_calls: 4 });
    const pool = await createPool(t);
    const [a, b] = await contactsWith(t, [undefined, undefined]);
    await addMembers(t, pool.uuid, [a.uuid, b.uuid]);
    const campaign = await createCampaign(t, {
      agent_uuid: line.agentId,
      pool_uuids: [pool.uuid],
      rule_uuid: rule.uuid,
      window: undefined,
    });
    await t.http.post(`/api/v1/campaigns/${campaign.uuid}/start`).expect(200);
    const before = await tasksOf(t, `campaign_uuid=${campaign.uuid}`);
    expect(before[0]).toMatchObject({ retry_interval_minutes: 30, retry_on: ['busy'], max_attempts: 4 });
    // One task has ended: it keeps the policy it ran with.
    await db.query(`UPDATE outbound_tasks SET status = 'failed' WHERE workspace_id = $1 AND id = $2`, [
      t.workspaceId,
      before[1].uuid,
    ]);
    await t.http
      .put(`/api/v1/rules/${rule.uuid}`)
      .send({ retry_interval_minutes: 90, retry_on: ['busy', 'no-answer'], max_total_calls: 6 })
      .expect(200);
    const task = async (uuid: string) => (await t.http.get(`/api/v1/tasks/${uuid}`).expect(200)).body.data;
    expect(await task(before[0].uuid)).toMatchObject({
      retry_interval_minutes: 90,
      retry_on: ['busy', 'no-answer'],
      max_attempts: 6,
    });
    expect(await task(before[1].uuid)).toMatchObject({ retry_interval_minutes: 30, max_attempts: 4 });
    // Paused: its held tasks take the change too.
    await t.http.post(`/api/v1/campaigns/${campaign.uuid}/pause`).expect(200);
    await t.http.put(`/api/v1/rules/${rule.uuid}`).send({ retry_strategy: 'exponential' }).expect(200);
    expect(await task(before[0].uuid)).toMatchObject({ status: 'on_hold', retry_strategy: 'exponential' });
    await t.http.post(`/api/v1/campaigns/${campaign.uuid}/cancel`).expect(200);
    // Ended: a later change of the rule leaves its tasks alone.
    await t.http.put(`/api/v1/rules/${rule.uuid}`).send({ retry_interval_minutes: 15 }).expect(200);
    expect(await task(before[0].uuid)).toMatchObject({ status: 'cancelled', retry_interval_minutes: 90 });
  });

  it('moves campaigns as the table says and answers 409 for the rest', async () => {
    const pool = await createPool(t);
    const [a] = await contactsWith(t, [undefined]);
    await addMembers(t, pool.uuid, [a.uuid]);
    const campaign = await createCampaign(t, { agent_uuid: line.agentId });
    const move = (action: string) => t.http.post(`/api/v1/campaigns/${campaign.uuid}/${action}`);
    const noPool = await move('start').expect(422);
    expect(noPool.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'pool_uuids' });
    expect((await move('pause').expect(409)).body.message).toBe('Campaign is draft');
    await t.http
      .post(`/api/v1/campaigns/${campaign.uuid}/pools`)
      .send({ pool_uuids: [pool.uuid, MISSING] })
      .expect(200);
    await move('start').expect(200);
    expect((await move('resume').expect(409)).body.message).toBe('Campaign is running');
    await t.http.put(`/api/v1/campaigns/${campaign.uuid}`).send({ channel: 'whatsapp' }).expect(409);
    await t.http.put(`/api/v1/campaigns/${campaign.uuid}`).send({ max_concurrency: 3 }).expect(200);
    // Variables and metadata changed while running reach the tasks not yet started (each only when sent).
    await t.http
      .put(`/api/v1/campaigns/${campaign.uuid}`)
      .send({ variables: { offer: 'spring' }, metadata: { batch: 7 } })
      .expect(200);
    await t.http
      .put(`/api/v1/campaigns/${campaign.uuid}`)
      .send({ variables: { offer: 'summer' } })
      .expect(200);
    expect((await tasksOf(t, `campaign_uuid=${campaign.uuid}`))[0]).toMatchObject({
      variables: { offer: 'summer' },
      metadata: { batch: 7 },
    });
    await t.http.delete(`/api/v1/campaigns/${campaign.uuid}`).expect(409);
    await t.http.delete(`/api/v1/pools/${pool.uuid}`).expect(409);

    await move('pause').expect(200);
    expect((await tasksOf(t, `campaign_uuid=${campaign.uuid}`))[0].status).toBe('on_hold');
    await move('resume').expect(200);
    expect((await tasksOf(t, `campaign_uuid=${campaign.uuid}`))[0].status).toBe('scheduled');
    await move('cancel').expect(200);
    expect((await tasksOf(t, `campaign_uuid=${campaign.uuid}`))[0].status).toBe('cancelled');
    expect((await move('start').expect(409)).body.message).toBe('Campaign is cancelled');
    const late = await addMembers(t, pool.uuid, [(await createContact(t)).uuid]);
    expect(late.data).toMatchObject({ tasks_created: 0, running_campaign_uuids: [] });
    await t.http.delete(`/api/v1/campaigns/${campaign.uuid}`).expect(200);
  });

  it('cancels a draft and a paused campaign; a pending task is held, released, held and cancelled', async () => {
    const draft = await createCampaign(t, { agent_uuid: line.agentId });
    const cancelled = await t.http.post(`/api/v1/campaigns/${draft.uuid}/cancel`).expect(200);
    expect(cancelled.body.data.status).toBe('cancelled');
    expect((await t.http.post(`/api/v1/campaigns/${draft.uuid}/resume`).expect(409)).body.message).toBe(
      'Campaign is cancelled',
    );

    const pool = await createPool(t);
    const [a] = await contactsWith(t, [undefined]);
    await addMembers(t, pool.uuid, [a.uuid]);
    const paused = await createCampaign(t, { agent_uuid: line.agentId, pool_uuids: [pool.uuid] });
    await t.http.post(`/api/v1/campaigns/${paused.uuid}/start`).expect(200);
    await t.http.post(`/api/v1/campaigns/${paused.uuid}/pause`).expect(200);
    expect((await t.http.post(`/api/v1/campaigns/${paused.uuid}/cancel`).expect(200)).body.data.status).toBe(
      'cancelled',
    );
    expect((await tasksOf(t, `campaign_uuid=${paused.uuid}`)).map((x) => x.status)).toEqual(['cancelled']);

    // A running campaign (due now) whose only pool is inactive: its task becomes pending and is never claimed.
    const idle = await createPool(t, { is_active: false });
    const [b] = await contactsWith(t, [undefined]);
    await addMembers(t, idle.uuid, [b.uuid]);
    const running = await createCampaign(t, {
      agent_uuid: line.agentId,
      pool_uuids: [idle.uuid],
      start_at: null,
    });
    await t.http.post(`/api/v1/campaigns/${running.uuid}/start`).expect(200);
    const [task] = await tasksOf(t, `campaign_uuid=${running.uuid}`);
    await waitFor(async () => {
      const rows = await db.query(`SELECT status FROM outbound_tasks WHERE workspace_id = $1 AND id = $2`, [
        t.workspaceId,
        task.uuid,
      ]);
      return rows[0].status === 'pending' ? true : undefined;
    });
    const move = (action: string) => t.http.post(`/api/v1/tasks/${task.uuid}/${action}`);
    expect((await move('hold').expect(200)).body.data.status).toBe('on_hold');
    expect((await move('release').expect(200)).body.data.status).toBe('pending');
    expect((await move('hold').expect(200)).body.data.status).toBe('on_hold');
    expect((await move('cancel').expect(200)).body.data.status).toBe('cancelled');
    expect((await move('release').expect(409)).body.message).toBe('Task is cancelled');
    // Every task of the running campaign has ended: the dispatcher's next pass completes it.
    await waitFor(
      async () => {
        const c = await t.http.get(`/api/v1/campaigns/${running.uuid}`).expect(200);
        return c.body.data.status === 'completed' ? true : undefined;
      },
      10_000,
      'the campaign to complete',
    );
    expect((await t.http.post(`/api/v1/campaigns/${running.uuid}/cancel`).expect(409)).body.message).toBe(
      'Campaign is completed',
    );
  });

  it('moves tasks as the table says and answers 409 for the rest', async () => {
    const at = new Date(Date.now() + 3600_000).toISOString();
    const res = await t.http
      .post('/api/v1/tasks')
      .send({
        title: 'Call back',
        type: 'make_call',
        agent_uuid: line.agentId,
        contact: { phone_number: '+14155550177' },
        scheduled_at: at,
      })
      .expect(201);
    const task = res.body.data;
    expect(task).toMatchObject({ status: 'scheduled', priority: 5, max_attempts: 3, attempts_count: 0 });
    const move = (action: string) => t.http.post(`/api/v1/tasks/${task.uuid}/${action}`);
    expect((await move('release').expect(409)).body.message).toBe('Task is scheduled');
    expect((await move('hold').expect(200)).body.data.status).toBe('on_hold');
    await t.http.put(`/api/v1/tasks/${task.uuid}`).send({ priority: 9 }).expect(200);
    expect((await move('release').expect(200)).body.data.status).toBe('scheduled');
    await move('retry').expect(409);
    expect((await move('cancel').expect(200)).body.data.status).toBe('cancelled');
    expect((await move('cancel').expect(409)).body.message).toBe('Task is cancelled');
    await t.http.put(`/api/v1/tasks/${task.uuid}`).send({ title: 'x' }).expect(409);
    const detail = await t.http.get(`/api/v1/tasks/${task.uuid}`).expect(200);
    expect(detail.body.data).toMatchObject({ status: 'cancelled', attempts: [], priority: 9 });

    const other = await t.http.post('/api/v1/tasks').send({
      title: 'x',
      type: 'send_sms',
      agent_uuid: line.agentId,
      contact_uuid: task.contact_uuid,
      scheduled_at: at,
    });
    expect(other.status).toBe(422);
    expect(other.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'type' });
    const both = await t.http.post('/api/v1/tasks').send({
      title: 'x',
      type: 'make_call',
      agent_uuid: line.agentId,
      contact_uuid: task.contact_uuid,
      contact: { phone_number: '+14155550177' },
      scheduled_at: at,
    });
    expect(both.status).toBe(422);
    const past = await t.http.post('/api/v1/tasks').send({
      title: 'x',
      type: 'make_call',
      agent_uuid: line.agentId,
      contact_uuid: task.contact_uuid,
      scheduled_at: new Date(Date.now() - 400 * 24 * 3600_000).toISOString(),
    });
    expect(past.body.error).toMatchObject({ field: 'scheduled_at' });
  });

  it("hides every outbound resource from another workspace's token", async () => {
    const pool = await createPool(t);
    const rule = await createRule(t);
    const campaign = await createCampaign(t, { agent_uuid: line.agentId, pool_uuids: [pool.uuid] });
    const [a] = await contactsWith(t, [undefined]);
    await addMembers(t, pool.uuid, [a.uuid]);
    for (const path of [
      `pools/${pool.uuid}`,
      `rules/${rule.uuid}`,
      `campaigns/${campaign.uuid}`,
      `pools/${pool.uuid}/contacts`,
    ])
      await other.http.get(`/api/v1/${path}`).expect(404);
    await other.http.post(`/api/v1/campaigns/${campaign.uuid}/start`).expect(404);
    await other.http
      .post(`/api/v1/pools/${pool.uuid}/contacts`)
      .send({ contact_uuids: [a.uuid] })
      .expect(404);
    await other.http.delete(`/api/v1/pools/${pool.uuid}/contacts/${a.uuid}`).expect(404);
    await other.http.put(`/api/v1/rules/${rule.uuid}`).send({ name: 'Stolen' }).expect(404);
    const list = await other.http.get('/api/v1/campaigns').expect(200);
    expect(list.body.data.items).toHaveLength(0);
    await t.http.post(`/api/v1/campaigns/${campaign.uuid}/start`).expect(200);
    const tasks = await tasksOf(t, `campaign_uuid=${campaign.uuid}`);
    await other.http.get(`/api/v1/tasks/${tasks[0].uuid}`).expect(404);
    await other.http.post(`/api/v1/tasks/${tasks[0].uuid}/cancel`).expect(404);
    expect(await tasksOf(other, '')).toHaveLength(0);
    // The rule in use by a running campaign cannot go.
    await t.http.put(`/api/v1/campaigns/${campaign.uuid}/rule`).send({ rule_uuid: rule.uuid }).expect(200);
    await t.http.delete(`/api/v1/rules/${rule.uuid}`).expect(409);
  });

  it('makes a listing (contacts, FIFO pool, rule, campaign) in one transaction', async () => {
    const known = await createContact(t, { name: 'Known' });
    const fresh = '+14155550188';
    const failing = await t.http.post('/api/v1/listings').send({
      name: 'Broken listing',
      campaign_type: 'whatsapp',
      agent_uuid: line.agentId,
      contacts: [{ phone_number: fresh, name: 'Fresh' }],
      rule: { max_calls_per_day: 2 },
    });
    expect(failing.status).toBe(422);
    expect(failing.body.error.field).toBe('template_setting_uuid');
    const leftovers = await db.query(
      `SELECT (SELECT count(*) FROM contacts WHERE workspace_id = $1 AND phone_number = $2)::int AS contacts,
              (SELECT count(*) FROM outbound_pools WHERE workspace_id = $1 AND name = 'Broken listing')::int AS pools,
              (SELECT count(*) FROM outbound_rules WHERE workspace_id = $1 AND name = 'Broken listing rule')::int AS rules`,
      [t.workspaceId, fresh],
    );
    expect(leftovers[0]).toEqual({ contacts: 0, pools: 0, rules: 0 });

    const res = await t.http
      .post('/api/v1/listings')
      .send({
        name: 'April leads',
        campaign_type: 'call',
        agent_uuid: line.agentId,
        contacts: [
          { phone_number: known.phone_number, surname: 'Updated' },
          { phone_number: fresh, name: 'Fresh', timezone: 'Europe/Paris' },
        ],
        rule: { max_calls_per_day: 2 },
        start_date: nextYear,
      })
      .expect(201);
    const listing = res.body.data;
    expect(listing).toMatchObject({
      name: 'April leads',
      campaign_type: 'call',
      status: 'draft',
      contacts_count: 2,
      contacts_created: 1,
      contacts_updated: 1,
    });
    const campaign = await t.http.get(`/api/v1/campaigns/${listing.uuid}`).expect(200);
    expect(campaign.body.data.rule).toMatchObject({ name: 'April leads rule', max_calls_per_day: 2 });
    const pool = await t.http.get(`/api/v1/pools/${listing.pool_uuid}`).expect(200);
    expect(pool.body.data).toMatchObject({ type: 'FIFO', contacts_count: 2 });
    const contact = await t.http.get(`/api/v1/contacts/${known.uuid}`).expect(200);
    expect(contact.body.data).toMatchObject({ name: 'Known', surname: 'Updated' });
    const list = await t.http.get('/api/v1/listings').expect(200);
    expect(list.body.data.items.map((l: { uuid: string }) => l.uuid)).toEqual([listing.uuid]);
    const extra = await createContact(t);
    const added = await t.http
      .post(`/api/v1/listings/${listing.uuid}/contacts`)
      .send({ contact_uuids: [extra.uuid] })
      .expect(200);
    expect(added.body.data).toMatchObject({ contacts_added: 1, tasks_created: 0 });
    await t.http.delete(`/api/v1/listings/${listing.uuid}/contacts/${extra.uuid}`).expect(200);
    expect((await t.http.get(`/api/v1/listings/${listing.uuid}`).expect(200)).body.data.contacts_count).toBe(
      2,
    );
    await other.http.get(`/api/v1/listings/${listing.uuid}`).expect(404);
    const plain = await createCampaign(t, { agent_uuid: line.agentId });
    await t.http.get(`/api/v1/listings/${plain.uuid}`).expect(404);
  });
  it('refuses a listing without campaign_type or with a name outside 3–255 characters, making nothing', async () => {
    const phone = '+14155550189';
    const body = { agent_uuid: line.agentId, contacts: [{ phone_number: phone }] };
    const untyped = await t.http.post('/api/v1/listings').send({ ...body, name: 'No type' });
    expect(untyped.status).toBe(422);
    expect(untyped.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'campaign_type' });
    const short = await t.http.post('/api/v1/listings').send({ ...body, name: 'ab', campaign_type: 'call' });
    expect(short.status).toBe(422);
    expect(short.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'name' });
    const long = await t.http
      .post('/api/v1/listings')
      .send({ ...body, name: 'x'.repeat(256), campaign_type: 'call' });
    expect(long.status).toBe(422);
    expect(long.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'name' });
    const made = await db.query(
      `SELECT count(*)::int AS n FROM contacts WHERE workspace_id = $1 AND phone_number = $2`,
      [t.workspaceId, phone],
    );
    expect(made[0].n).toBe(0);
    // The longest name makes its pool, campaign and rule (named after it, cut to 255).
    const longest = await t.http
      .post('/api/v1/listings')
      .send({
        ...body,
        name: 'y'.repeat(255),
        campaign_type: 'call',
        rule: { max_calls_per_day: 2 },
        start_date: nextYear,
      })
      .expect(201);
    expect(longest.body.data).toMatchObject({
      name: 'y'.repeat(255),
      campaign_type: 'call',
      contacts_count: 1,
    });
  });

  it('a listing announces each contact it creates with contact_created, in its transaction', async () => {
    const known = await createContact(t, { name: 'Known', phone_number: '+14155550171' });
    const events = (phones: string[]) =>
      db.query(
        `SELECT data->'contact'->>'phone_number' AS phone, data->'contact'->>'name' AS name, agent_id
           FROM outbox_events
          WHERE workspace_id = $1 AND type = 'contact_created' AND data->'contact'->>'phone_number' = ANY($2)
          ORDER BY 1`,
        [t.workspaceId, phones],
      );
    const fresh = ['+14155550172', '+14155550173'];
    // A listing refused (no template setting for a WhatsApp listing) creates nothing and announces nothing.
    await t.http
      .post('/api/v1/listings')
      .send({
        name: 'Refused',
        campaign_type: 'whatsapp',
        agent_uuid: line.agentId,
        contacts: fresh.map((phone_number) => ({ phone_number })),
      })
      .expect(422);
    expect(await events(fresh)).toEqual([]);
    await t.http
      .post('/api/v1/listings')
      .send({
        name: 'May leads',
        campaign_type: 'call',
        agent_uuid: line.agentId,
        contacts: [
          { phone_number: known.phone_number, surname: 'Again' },
          { phone_number: fresh[0], name: 'First' },
          { phone_number: fresh[1], name: 'Second', email: 'second@example.com' },
        ],
        start_date: nextYear,
      })
      .expect(201);
    expect(await events([known.phone_number, ...fresh])).toEqual([
      { phone: known.phone_number, name: 'Known', agent_id: null },
      { phone: fresh[0], name: 'First', agent_id: null },
      { phone: fresh[1], name: 'Second', agent_id: null },
    ]);
    // Another workspace's outbox holds none of them.
    const leaked = await db.query(
      `SELECT count(*)::int AS n FROM outbox_events WHERE workspace_id = $1 AND type = 'contact_created'`,
      [other.workspaceId],
    );
    expect(leaked[0].n).toBe(0);
  });
});
