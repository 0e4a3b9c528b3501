import { DataSource } from 'typeorm';
import { codeFailureTexts } from '@/database/migrations/1764192000000-TaskFailureData';
import { BlacklistRepository } from '@/modules/blacklist/blacklist.repository';
import { CallPlacement } from '@/modules/calls/api/call-placement.service';
import { OutboundClock } from '@/modules/outbound/engine/outbound-clock';
import { sandboxDestination, sandboxLine } from '../factories/call.factory';
import { createAgentId, createPhoneNumber } from '../factories/agent.factory';
import { createContact } from '../factories/contact.factory';
import {
  addMembers,
  ALWAYS,
  createCampaign,
  createPool,
  createRule,
  tasksOf,
} from '../factories/outbound.factory';
import { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { TestApp } from '../setup/test-app';
import { waitingForLock, withTableLocked } from '../support/table-lock';
import { waitFor } from '../support/wait';

const HOUR = 3600_000;
type Task = Record<string, any>;

/** The dispatcher against sandbox calls: pool order, limits, retries, windows, expiry, the do-not-call list. */
jest.setTimeout(120_000);

describe('outbound dispatcher', () => {
  // Declared before the suite start so the clock is reset while the app still runs.
  afterAll(async () => {
    await clock.reset();
  });
  // Dispatchers claim every workspace's due tasks: other suites' apps (other limits) must not see these.
  const suite = useTestApp({
    database: 'outbound',
    env: {
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}-outbound`,
      SANDBOX_ANSWER_DELAY_MS: '131',
      MAX_CONCURRENT_CALLS: '4',
    },
    tenants: ['t'],
  });
  let app: TestApp;
  let t: TestTenant;
  let line: { agentId: string; numberId: string; number: string };
  let db: DataSource;
  let clock: OutboundClock;

  /** Contacts with sandbox numbers ending in the digits given (answered calls end after 1 s of silence). */
  const contacts = async (lastFours: string[], body: object = {}) => {
    const out: Record<string, any>[] = [];
    for (const four of lastFours)
      out.push(await createContact(t, { phone_number: sandboxDestination(four), ...body }));
    return out;
  };
  const campaignTasks = (campaignId: string) => tasksOf(t, `campaign_uuid=${campaignId}`);
  /** Waits until every task of the campaign has ended; on timeout the error shows where each one is. */
  const allEnded = async (campaignId: string, timeoutMs = 60_000) => {
    try {
      return await waitFor(
        async () => {
          const tasks = await campaignTasks(campaignId);
          return tasks.every((x) => ['completed', 'failed', 'cancelled', 'expired'].includes(x.status))
            ? tasks
            : undefined;
        },
        timeoutMs,
        `campaign ${campaignId} done`,
      );
    } catch (err) {
      const state = await db.query(
        `SELECT t.status, t.attempts, c.status AS call, c.end_reason FROM outbound_tasks t
           LEFT JOIN calls c ON c.workspace_id = t.workspace_id AND c.id = t.current_call_id
          WHERE t.workspace_id = $1 AND t.campaign_id = $2`,
        [t.workspaceId, campaignId],
      );
      throw new Error(`${(err as Error).message}: ${JSON.stringify(state)}`);
    }
  };
  const taskWhere = (id: string, check: (task: Task) => boolean, timeoutMs = 30_000) =>
    waitFor(
      async () => {
        const res = await t.http.get(`/api/v1/tasks/${id}`).expect(200);
        return check(res.body.data) ? (res.body.data as Task) : undefined;
      },
      timeoutMs,
      `task ${id}`,
    );
  /**
   * Like `taskWhere`, reading the table until `condition` (SQL on the task's row) holds, then the API once: polling
   * through the API would spend the token's requests per minute, which the suite's other polls need.
   */
  const taskRowWhere = async (id: string, condition: string, timeoutMs = 30_000) => {
    await waitFor(
      async () => {
        const rows = await db.query(
          `SELECT 1 FROM outbound_tasks WHERE workspace_id = $1 AND id = $2 AND ${condition}`,
          [t.workspaceId, id],
        );
        return rows.length ? true : undefined;
      },
      timeoutMs,
      `task ${id}: ${condition}`,
    );
    return (await t.http.get(`/api/v1/tasks/${id}`).expect(200)).body.data as Task;
  };
  /** Samples live tasks per pool and campaign, and live calls of the workspace, until stopped; answers the peaks. */
  const sampler = (campaignId: string) => {
    let stop = false;
    const peak = { campaign: 0, pool: 0, calls: 0 };
    const done = (async () => {
      while (!stop) {
        const [row] = await db.query(
          `SELECT coalesce(sum(n), 0)::int AS campaign, coalesce(max(n), 0)::int AS pool FROM (
             SELECT count(*) AS n FROM outbound_tasks WHERE workspace_id = $1 AND campaign_id = $2
                AND status IN ('queued', 'in_progress') GROUP BY pool_id) x`,
          [t.workspaceId, campaignId],
        );
        const [calls] = await db.query(
          `SELECT count(*)::int AS n FROM calls WHERE workspace_id = $1 AND status IN ('queued', 'ringing', 'in-progress')`,
          [t.workspaceId],
        );
        peak.campaign = Math.max(peak.campaign, row.campaign);
        peak.pool = Math.max(peak.pool, row.pool);
        peak.calls = Math.max(peak.calls, calls.n);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    return async () => {
      stop = true;
      await done;
      return peak;
    };
  };
  const start = (campaignId: string) => t.http.post(`/api/v1/campaigns/${campaignId}/start`).expect(200);
  const byStart = (tasks: Task[]) =>
    [...tasks].sort((a, b) => Date.parse(a.started_at) - Date.parse(b.started_at)).map((x) => x.contact_uuid);

  beforeAll(async () => {
    ({ app, t } = suite);
    db = app.get<DataSource>(DataSource);
    clock = app.get<OutboundClock>(OutboundClock);
    await clock.reset();
    line = await sandboxLine(t, { settings: { voice: { silence_timeout_seconds: 1 } } });
  });

  it('FIFO dials one member at a time, oldest first; LIFO newest first', async () => {
    for (const type of ['FIFO', 'LIFO']) {
      const pool = await createPool(t, { type });
      const members = await contacts(['7001', '7002', '7003']);
      for (const m of members) await addMembers(t, pool.uuid, [m.uuid]);
      const campaign = await createCampaign(t, { agent_uuid: line.agentId, pool_uuids: [pool.uuid] });
      const peaks = sampler(campaign.uuid);
      await start(campaign.uuid);
      const tasks = await allEnded(campaign.uuid);
      expect((await peaks()).pool).toBe(1);
      expect(tasks.map((x) => x.status)).toEqual(['completed', 'completed', 'completed']);
      const edit = await t.http.put(`/api/v1/tasks/${tasks[0].uuid}`).send({ priority: 9 }).expect(409);
      expect(edit.body.message).toBe('Task is completed');
      const order = members.map((m) => m.uuid);
      expect(byStart(tasks)).toEqual(type === 'FIFO' ? order : order.reverse());
    }
  });

  it('Parallel dials by priority up to max_parallel_items; max_concurrency and the workspace limit hold', async () => {
    const pool = await createPool(t, { type: 'Parallel', max_parallel_items: 2 });
    const low = await contacts(['7101', '7102']);
    const high = await contacts(['7103', '7104']);
    await addMembers(
      t,
      pool.uuid,
      low.map((c) => c.uuid),
      1,
    );
    await addMembers(
      t,
      pool.uuid,
      high.map((c) => c.uuid),
      9,
    );
    const campaign = await createCampaign(t, { agent_uuid: line.agentId, pool_uuids: [pool.uuid] });
    const peaks = sampler(campaign.uuid);
    await start(campaign.uuid);
    const tasks = await allEnded(campaign.uuid);
    expect((await peaks()).pool).toBeLessThanOrEqual(2);
    expect(byStart(tasks).slice(0, 2).sort()).toEqual(high.map((c) => c.uuid).sort());

    // Two campaigns of 5 wanting 3 each share a workspace limit of 4 live calls.
    const campaigns: Record<string, any>[] = [];
    for (let i = 0; i < 2; i++) {
      const p = await createPool(t, { type: 'Parallel', max_parallel_items: 10 });
      const m = await contacts(['7201', '7202', '7203', '7204', '7205']);
      await addMembers(
        t,
        p.uuid,
        m.map((c) => c.uuid),
      );
      campaigns.push(
        await createCampaign(t, { agent_uuid: line.agentId, pool_uuids: [p.uuid], max_concurrency: 3 }),
      );
    }
    const [first, second] = campaigns.map((c) => sampler(c.uuid));
    await Promise.all(campaigns.map((c) => start(c.uuid)));
    const ended = await Promise.all(campaigns.map((c) => allEnded(c.uuid, 90_000)));
    const [p1, p2] = [await first(), await second()];
    expect(p1.campaign).toBeLessThanOrEqual(3);
    expect(p2.campaign).toBeLessThanOrEqual(3);
    expect(Math.max(p1.calls, p2.calls)).toBeLessThanOrEqual(4);
    expect(Math.max(p1.calls, p2.calls)).toBeGreaterThanOrEqual(3);
    for (const tasks of ended)
      expect(tasks.every((x) => x.status === 'completed' && x.attempts_count === 1)).toBe(true);
  });

  it('retries busy after the interval up to max_attempts, never over the daily cap in the contact zone', async () => {
    const base = Date.parse('2026-12-02T10:00:00Z'); // a Wednesday, 11:00 in Paris
    await clock.set(base);
    const rule = await createRule(t, {
      max_calls_per_day: 2,
      max_total_calls: 3,
      retry_interval_minutes: 30,
    });
    const pool = await createPool(t);
    const [busy] = await contacts(['0002'], { timezone: 'Europe/Paris' });
    const [failed] = await contacts(['0004']);
    await addMembers(t, pool.uuid, [busy.uuid, failed.uuid]);
    const campaign = await createCampaign(t, {
      agent_uuid: line.agentId,
      pool_uuids: [pool.uuid],
      rule_uuid: rule.uuid,
      window: {
        days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
        start_time: '08:00',
        end_time: '20:00',
      },
    });
    await start(campaign.uuid);
    const [busyTask] = await tasksOf(t, `campaign_uuid=${campaign.uuid}&contact_uuid=${busy.uuid}`);
    const first = await taskWhere(busyTask.uuid, (x) => x.status === 'scheduled' && x.attempts_count === 1);
    expect(first.last_outcome).toBe('busy');
    expect(Date.parse(first.next_attempt_at)).toBeGreaterThanOrEqual(base + 30 * 60_000);
    // The failed contact is not retried: failed is not in retry_on.
    const [failedTask] = await tasksOf(t, `campaign_uuid=${campaign.uuid}&contact_uuid=${failed.uuid}`);
    const f = await taskWhere(failedTask.uuid, (x) => x.status === 'failed');
    expect(f).toMatchObject({ failure_reason: 'failed', attempts_count: 1, last_outcome: 'failed' });
    // The campaign says it waits for the retry, and when.
    const waiting = async () => {
      const c = (await t.http.get(`/api/v1/campaigns/${campaign.uuid}`).expect(200)).body.data;
      return { next_dial_at: c.next_dial_at, waiting_reason: c.waiting_reason };
    };
    expect(await waiting()).toEqual({
      next_dial_at: first.next_attempt_at,
      waiting_reason: 'retry_interval',
    });

    await clock.set(base + 31 * 60_000);
    const second = await taskWhere(busyTask.uuid, (x) => x.status === 'scheduled' && x.attempts_count === 2);
    // Two calls today in Paris: the next one waits for the window's opening on the next local day (08:00 Paris).
    expect(second.next_attempt_at).toBe('2026-12-03T07:00:00.000Z');
    expect(await waiting()).toEqual({
      next_dial_at: '2026-12-03T07:00:00.000Z',
      waiting_reason: 'daily_cap',
    });
    await clock.set(Date.parse('2026-12-03T06:59:00Z'));
    await new Promise((r) => setTimeout(r, 2500));
    expect((await t.http.get(`/api/v1/tasks/${busyTask.uuid}`)).body.data.attempts_count).toBe(2);
    await clock.set(Date.parse('2026-12-03T07:00:30Z'));
    const last = await taskWhere(busyTask.uuid, (x) => x.status === 'failed');
    expect(last).toMatchObject({
      attempts_count: 3,
      failure_reason: 'max_attempts_reached',
      last_outcome: 'busy',
    });
    expect(last.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['busy', 'busy', 'busy']);
    const logged = await db.query(
      `SELECT count(*)::int AS n FROM action_logs WHERE workspace_id = $1 AND type = 'task' AND subject_id = $2`,
      [t.workspaceId, busyTask.uuid],
    );
    expect(logged[0].n).toBe(3);
    await clock.reset();
  });

  it("counts the daily cap in the contact's local day when the window reads the campaign's zone", async () => {
    await clock.set(Date.parse('2026-12-02T10:30:00Z')); // Wednesday 23:30 in Auckland (UTC+13), 10:30 in UTC
    try {
      const rule = await createRule(t, {
        max_calls_per_day: 1,
        max_total_calls: 2,
        retry_interval_minutes: 1,
      });
      const pool = await createPool(t);
      const [busy] = await contacts(['0002'], { timezone: 'Pacific/Auckland' });
      await addMembers(t, pool.uuid, [busy.uuid]);
      const campaign = await createCampaign(t, {
        agent_uuid: line.agentId,
        pool_uuids: [pool.uuid],
        rule_uuid: rule.uuid,
        timezone: 'UTC',
        window: { ...ALWAYS, use_contact_timezone: false },
      });
      await start(campaign.uuid);
      const [task] = await campaignTasks(campaign.uuid);
      const first = await taskRowWhere(task.uuid, `status = 'scheduled' AND attempts = 1`);
      // Wednesday's one call in Auckland is made: the next waits for Thursday there (11:00 UTC), not in UTC.
      expect(first.next_attempt_at).toBe('2026-12-02T11:00:00.000Z');
      await t.http.post(`/api/v1/campaigns/${campaign.uuid}/cancel`).expect(200);
    } finally {
      await clock.reset();
    }
  });

  it("opens the window in the contact's zone across a DST change", async () => {
    // New York leaves daylight time on 2026-11-01: 09:00 is 13:00Z on Oct 31 and 14:00Z on Nov 1.
    await clock.set(Date.parse('2026-10-31T14:30:00Z')); // 10:30 in New York, after the window
    const pool = await createPool(t);
    const [ny] = await contacts(['7301'], { timezone: 'America/New_York' });
    await addMembers(t, pool.uuid, [ny.uuid]);
    const campaign = await createCampaign(t, {
      agent_uuid: line.agentId,
      pool_uuids: [pool.uuid],
      window: {
        days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
        start_time: '09:00',
        end_time: '10:00',
      },
    });
    await start(campaign.uuid);
    const [task] = await campaignTasks(campaign.uuid);
    expect(task.scheduled_at).toBe('2026-11-01T14:00:00.000Z');
    await clock.set(Date.parse('2026-11-01T13:30:00Z')); // 08:30 EST: still closed
    await new Promise((r) => setTimeout(r, 2500));
    expect((await t.http.get(`/api/v1/tasks/${task.uuid}`)).body.data.status).toBe('scheduled');
    await clock.set(Date.parse('2026-11-01T14:00:05Z'));
    const done = await taskWhere(task.uuid, (x) => x.status === 'completed');
    expect(done.attempts_count).toBe(1);
    await clock.reset();
  });

  it('fails a blacklisted contact without a call; end_at expires the rest and completes the campaign', async () => {
    const pool = await createPool(t);
    const [blocked] = await contacts(['7401']);
    await app.get<BlacklistRepository>(BlacklistRepository).save(t.workspaceId, [
      app.get<BlacklistRepository>(BlacklistRepository).build(t.workspaceId, {
        phoneNumber: blocked.phone_number,
        type: 'Phone',
        reason: 'asked',
        source: 'manual',
        isPermanent: true,
        contactId: null,
        email: null,
        expiresAt: null,
      }),
    ]);
    await addMembers(t, pool.uuid, [blocked.uuid]);
    const campaign = await createCampaign(t, { agent_uuid: line.agentId, pool_uuids: [pool.uuid] });
    await start(campaign.uuid);
    const [task] = await campaignTasks(campaign.uuid);
    const failed = await taskWhere(task.uuid, (x) => x.status === 'failed');
    expect(failed).toMatchObject({ failure_reason: 'blacklisted', attempts_count: 0 });
    const calls = await db.query(
      `SELECT count(*)::int AS n FROM calls WHERE workspace_id = $1 AND task_id = $2`,
      [t.workspaceId, task.uuid],
    );
    expect(calls[0].n).toBe(0);
    const members = await t.http.get(`/api/v1/pools/${pool.uuid}/contacts`).expect(200);
    expect(members.body.data.items[0].status).toBe('Skipped');
    await waitFor(async () => {
      const c = await t.http.get(`/api/v1/campaigns/${campaign.uuid}`).expect(200);
      return c.body.data.status === 'completed' ? true : undefined;
    });

    const later = await createPool(t);
    await addMembers(
      t,
      later.uuid,
      (await contacts(['7402', '7403'])).map((c) => c.uuid),
    );
    const now = await clock.now();
    const ending = await createCampaign(t, {
      agent_uuid: line.agentId,
      pool_uuids: [later.uuid],
      start_at: new Date(now + HOUR).toISOString(),
      end_at: new Date(now + 2 * HOUR).toISOString(),
    });
    await start(ending.uuid);
    await clock.set(now + 3 * HOUR);
    const expired = await allEnded(ending.uuid);
    expect(expired.map((x) => x.status)).toEqual(['expired', 'expired']);
    const detail = await t.http.get(`/api/v1/campaigns/${ending.uuid}`).expect(200);
    expect(detail.body.data).toMatchObject({ status: 'completed', stats: { expired: 2, attempts: 0 } });

    // An expired task retried after its campaign completed dials once, under that campaign, which stays completed.
    const retried = await t.http.post(`/api/v1/tasks/${expired[0].uuid}/retry`).expect(200);
    expect(retried.body.data).toMatchObject({ status: 'scheduled', expires_at: null });
    const dialled = await taskWhere(expired[0].uuid, (x) => x.status === 'completed');
    expect(dialled.attempts_count).toBe(1);
    const after = await t.http.get(`/api/v1/campaigns/${ending.uuid}`).expect(200);
    expect(after.body.data).toMatchObject({
      status: 'completed',
      stats: { expired: 1, completed: 1, attempts: 1 },
    });
    await clock.reset();
    // A cancelled or deleted campaign dials nothing more: retrying its task is 409, and the task stays as it was.
    await db.query(`UPDATE outbound_campaigns SET status = 'cancelled' WHERE workspace_id = $1 AND id = $2`, [
      t.workspaceId,
      ending.uuid,
    ]);
    const refused = await t.http.post(`/api/v1/tasks/${expired[1].uuid}/retry`).expect(409);
    expect(refused.body.message).toBe("The task's campaign is cancelled");
    await t.http.delete(`/api/v1/campaigns/${campaign.uuid}`).expect(200);
    const gone = await t.http.post(`/api/v1/tasks/${task.uuid}/retry`).expect(409);
    expect(gone.body.message).toBe("The task's campaign is deleted");
    expect((await t.http.get(`/api/v1/tasks/${task.uuid}`).expect(200)).body.data.status).toBe('failed');
  });

  it('a paused campaign past its end_at expires its waiting tasks, and completes once resumed', async () => {
    const pool = await createPool(t);
    await addMembers(
      t,
      pool.uuid,
      (await contacts(['7404', '7405'])).map((c) => c.uuid),
    );
    const now = await clock.now();
    const campaign = await createCampaign(t, {
      agent_uuid: line.agentId,
      pool_uuids: [pool.uuid],
      start_at: new Date(now + HOUR).toISOString(),
      end_at: new Date(now + 2 * HOUR).toISOString(),
    });
    await start(campaign.uuid);
    await t.http.post(`/api/v1/campaigns/${campaign.uuid}/pause`).expect(200);
    expect((await campaignTasks(campaign.uuid)).map((x) => x.status)).toEqual(['on_hold', 'on_hold']);
    try {
      await clock.set(now + 3 * HOUR);
      const expired = await allEnded(campaign.uuid);
      expect(expired.map((x) => x.status)).toEqual(['expired', 'expired']);
      expect((await t.http.get(`/api/v1/campaigns/${campaign.uuid}`).expect(200)).body.data.status).toBe(
        'paused',
      );
      await t.http.post(`/api/v1/campaigns/${campaign.uuid}/resume`).expect(200);
      await waitFor(async () => {
        const c = await t.http.get(`/api/v1/campaigns/${campaign.uuid}`).expect(200);
        return c.body.data.status === 'completed' ? c.body.data : undefined;
      });
    } finally {
      await clock.reset();
    }
  });

  it('completes a running campaign left with no task: pools empty at the start, or every member removed', async () => {
    const completed = async (id: string) => {
      await waitFor(async () => {
        const [c] = await db.query(
          `SELECT status FROM outbound_campaigns WHERE workspace_id = $1 AND id = $2`,
          [t.workspaceId, id],
        );
        return c.status === 'completed' ? true : undefined;
      });
      return (await t.http.get(`/api/v1/campaigns/${id}`).expect(200)).body.data;
    };
    const events = (id: string) =>
      db.query(
        `SELECT data->'campaign'->>'status' AS status, data->>'previous_status' AS previous FROM outbox_events
          WHERE workspace_id = $1 AND type = 'campaign_status' AND data->'campaign'->>'uuid' = $2`,
        [t.workspaceId, id],
      );
    const empty = await createPool(t);
    const campaign = await createCampaign(t, { agent_uuid: line.agentId, pool_uuids: [empty.uuid] });
    await start(campaign.uuid);
    expect(await completed(campaign.uuid)).toMatchObject({ stats: { tasks: 0 } });
    expect(await events(campaign.uuid)).toContainEqual({ status: 'completed', previous: 'running' });
    for (const action of ['start', 'pause', 'resume', 'cancel'])
      expect(
        (await t.http.post(`/api/v1/campaigns/${campaign.uuid}/${action}`).expect(409)).body.message,
      ).toBe('Campaign is completed');

    // One waiting for its start_at stays running: members may still come.
    const later = await createCampaign(t, {
      agent_uuid: line.agentId,
      pool_uuids: [empty.uuid],
      start_at: new Date((await clock.now()) + HOUR).toISOString(),
    });
    await start(later.uuid);
    await new Promise((r) => setTimeout(r, 2500));
    expect((await t.http.get(`/api/v1/campaigns/${later.uuid}`).expect(200)).body.data.status).toBe(
      'running',
    );
    await t.http.post(`/api/v1/campaigns/${later.uuid}/cancel`).expect(200);

    try {
      await clock.set(Date.parse('2026-12-02T03:00:00Z')); // the window opens at 09:00
      const pool = await createPool(t);
      const [member] = await contacts(['7801']);
      await addMembers(t, pool.uuid, [member.uuid]);
      const waiting = await createCampaign(t, {
        agent_uuid: line.agentId,
        pool_uuids: [pool.uuid],
        window: { days: ALWAYS.days, start_time: '09:00', end_time: '18:00' },
      });
      await start(waiting.uuid);
      expect((await campaignTasks(waiting.uuid)).map((x) => x.status)).toEqual(['scheduled']);
      await t.http.delete(`/api/v1/pools/${pool.uuid}/contacts/${member.uuid}`).expect(200);
      expect(await completed(waiting.uuid)).toMatchObject({ stats: { tasks: 1, cancelled: 1 } });
      expect(await events(waiting.uuid)).toContainEqual({ status: 'completed', previous: 'running' });
    } finally {
      await clock.reset();
    }
  });

  it('fails a task refused before its call with a stable code and its data, never the refusal’s words', async () => {
    /** A standalone call task, due in a moment. */
    const task = async (agentId: string, contactId: string, numberId?: string) => {
      const res = await t.http
        .post('/api/v1/tasks')
        .send({
          title: 'Refused',
          type: 'make_call',
          agent_uuid: agentId,
          contact_uuid: contactId,
          scheduled_at: new Date((await clock.now()) + 1000).toISOString(),
          ...(numberId ? { phone_number_uuid: numberId } : {}),
        })
        .expect(201);
      return res.body.data.uuid as string;
    };
    const [home, home2, home3, home4] = await contacts(['7971', '7972', '7973', '7974']);
    // The sandbox line is a US number: by default it calls the US only.
    const abroad = await createContact(t, { phone_number: '+447400123456' });
    const noPhone = (
      await t.http
        .post('/api/v1/contacts')
        .send({ name: 'No phone', email: 'nophone@example.com' })
        .expect(201)
    ).body.data;
    const paused = await sandboxLine(t);
    await t.http.patch(`/api/v1/agents/${paused.agentId}`).send({ status: 'paused' }).expect(200);
    const unbound = await createAgentId(t, { name: 'No line' });
    const silent = await sandboxLine(t);
    await t.http
      .patch(`/api/v1/phone-numbers/${silent.numberId}`)
      .send({ channel_settings: { voice: { enabled: false } } })
      .expect(200);
    const textLine = await createPhoneNumber(t, { capabilities: { call: false, sms: true } });

    const cases: [id: string, reason: string, data: Record<string, unknown> | null][] = [
      [
        await task(line.agentId, abroad.uuid),
        'destination_not_allowed',
        { phone_number: line.number, country: 'GB', whitelisted_destinations: ['US'] },
      ],
      [await task(silent.agentId, home.uuid), 'voice_disabled', { phone_number: silent.number }],
      [
        await task(paused.agentId, home2.uuid),
        'agent_unavailable',
        { agent_uuid: paused.agentId, agent_status: 'paused' },
      ],
      [await task(unbound, home3.uuid), 'no_number_bound', { agent_uuid: unbound }],
      [
        await task(line.agentId, home4.uuid, textLine.uuid),
        'number_unavailable',
        { phone_number: textLine.number },
      ],
      [await task(line.agentId, noPhone.uuid), 'invalid_number', null],
    ];
    for (const [id, reason, data] of cases) {
      const failed = await taskRowWhere(id, `status = 'failed'`);
      expect({ id, ...failed }).toMatchObject({
        id,
        failure_reason: reason,
        failure_data: data,
        attempts_count: 0,
      });
    }
    const calls = await db.query(
      `SELECT count(*)::int AS n FROM calls WHERE workspace_id = $1 AND task_id = ANY($2)`,
      [t.workspaceId, cases.map(([id]) => id)],
    );
    expect(calls[0].n).toBe(0);
    // A retry clears both; the same refusal fails it again with the same code.
    const [[id]] = cases;
    const retried = await t.http.post(`/api/v1/tasks/${id}/retry`).expect(200);
    expect(retried.body.data).toMatchObject({ failure_reason: null, failure_data: null });
    expect(await taskRowWhere(id, `status = 'failed'`)).toMatchObject({
      failure_reason: 'destination_not_allowed',
      failure_data: { country: 'GB' },
    });
  });

  it('the migration gives tasks failed with a refusal’s words before the codes their code and data', async () => {
    const tomorrow = new Date((await clock.now()) + 24 * HOUR).toISOString();
    const texts = [
      "Calls from +14155550100 to GB are not allowed: GB is not in the number's whitelisted_destinations (US, CA)",
      "Calls from +14155550100 to an unknown country are not allowed: it is not in the number's whitelisted_destinations (US)",
      'Agent is paused',
      'phone_number_uuid is required: the agent has no number bound to its call channel',
      'Outbound calls from +14155550100 are disabled (channel_settings.voice.enabled)',
      'Words of no known refusal',
    ];
    const ids: string[] = [];
    for (const contact of await contacts(['7981', '7982', '7983', '7984', '7985', '7986'])) {
      const res = await t.http
        .post('/api/v1/tasks')
        .send({
          title: 'Failed long ago',
          type: 'make_call',
          agent_uuid: line.agentId,
          contact_uuid: contact.uuid,
          scheduled_at: tomorrow,
        })
        .expect(201);
      ids.push(res.body.data.uuid as string);
    }
    for (const [i, id] of ids.entries())
      await db.query(
        `UPDATE outbound_tasks SET status = 'failed', failure_reason = $3, failed_at = now()
          WHERE workspace_id = $1 AND id = $2`,
        [t.workspaceId, id, texts[i]],
      );
    const runner = db.createQueryRunner();
    try {
      await codeFailureTexts(runner);
    } finally {
      await runner.release();
    }
    const failures = [];
    for (const id of ids) {
      const task = (await t.http.get(`/api/v1/tasks/${id}`).expect(200)).body.data;
      failures.push({ failure_reason: task.failure_reason, failure_data: task.failure_data });
    }
    expect(failures).toEqual([
      {
        failure_reason: 'destination_not_allowed',
        failure_data: { phone_number: '+14155550100', country: 'GB', whitelisted_destinations: ['US', 'CA'] },
      },
      {
        failure_reason: 'destination_not_allowed',
        failure_data: { phone_number: '+14155550100', country: null, whitelisted_destinations: ['US'] },
      },
      {
        failure_reason: 'agent_unavailable',
        failure_data: { agent_uuid: line.agentId, agent_status: 'paused' },
      },
      { failure_reason: 'no_number_bound', failure_data: { agent_uuid: line.agentId } },
      { failure_reason: 'voice_disabled', failure_data: { phone_number: '+14155550100' } },
      { failure_reason: 'Words of no known refusal', failure_data: null },
    ]);
  });

  it("removing a member mid-campaign cancels only that contact's not-started task of that pool", async () => {
    const ringing = await createPool(t, { type: 'FIFO' });
    const otherPool = await createPool(t);
    const [a, b] = await contacts(['0009', '7501']);
    await addMembers(t, ringing.uuid, [a.uuid, b.uuid]);
    await addMembers(t, otherPool.uuid, [b.uuid]);
    const campaign = await createCampaign(t, { agent_uuid: line.agentId, pool_uuids: [ringing.uuid] });
    const elsewhere = await createCampaign(t, {
      agent_uuid: line.agentId,
      pool_uuids: [otherPool.uuid],
      start_at: new Date((await clock.now()) + 24 * HOUR).toISOString(),
    });
    await start(campaign.uuid);
    await start(elsewhere.uuid);
    const [aTask] = await tasksOf(t, `campaign_uuid=${campaign.uuid}&contact_uuid=${a.uuid}`);
    await taskWhere(aTask.uuid, (x) => x.status === 'in_progress');
    const removedA = await t.http.delete(`/api/v1/pools/${ringing.uuid}/contacts/${a.uuid}`).expect(200);
    expect(removedA.body.data.tasks_cancelled).toBe(0);
    const removedB = await t.http.delete(`/api/v1/pools/${ringing.uuid}/contacts/${b.uuid}`).expect(200);
    expect(removedB.body.data.tasks_cancelled).toBe(1);
    const [live] = await tasksOf(t, `campaign_uuid=${campaign.uuid}&contact_uuid=${a.uuid}`);
    expect(live.status).toBe('in_progress');
    const call = await t.http.get(`/api/v1/calls/${live.conversation_uuid}`).expect(200);
    expect(call.body.data.status).toBe('ringing');
    const [kept] = await tasksOf(t, `campaign_uuid=${elsewhere.uuid}&contact_uuid=${b.uuid}`);
    expect(kept.status).toBe('scheduled');
    expect((await t.http.post(`/api/v1/tasks/${live.uuid}/cancel`).expect(409)).body.message).toBe(
      'Task is in_progress',
    );
    await t.http
      .post(`/api/v1/calls/${live.conversation_uuid}/simulate`)
      .send({ action: 'hangup' })
      .expect(200);
    await taskWhere(live.uuid, (x) => x.status === 'cancelled');
    await t.http.post(`/api/v1/campaigns/${elsewhere.uuid}/cancel`).expect(200);
  });

  it('a call still running when its campaign is cancelled, ends, or its pool is detached is not tried again', async () => {
    const row = async (id: string) =>
      (
        await db.query(
          `SELECT status, failure_reason, last_outcome, attempts, current_call_id FROM outbound_tasks
            WHERE workspace_id = $1 AND id = $2`,
          [t.workspaceId, id],
        )
      )[0] as Task;
    const campaignStatus = async (id: string) =>
      (
        await db.query(`SELECT status FROM outbound_campaigns WHERE workspace_id = $1 AND id = $2`, [
          t.workspaceId,
          id,
        ])
      )[0].status as string;
    /** A campaign of one member whose call rings (until told busy), started: its task, once in progress. */
    const ringing = async (body: object = {}) => {
      const pool = await createPool(t);
      const [member] = await contacts(['0009']);
      await addMembers(t, pool.uuid, [member.uuid]);
      const campaign = await createCampaign(t, {
        agent_uuid: line.agentId,
        pool_uuids: [pool.uuid],
        ...body,
      });
      await start(campaign.uuid);
      const [task] = await campaignTasks(campaign.uuid);
      await waitFor(async () => {
        const [call] = await db.query(
          `SELECT c.status FROM outbound_tasks t JOIN calls c ON c.workspace_id = t.workspace_id
              AND c.id = t.current_call_id WHERE t.workspace_id = $1 AND t.id = $2 AND t.status = 'in_progress'`,
          [t.workspaceId, task.uuid],
        );
        return call?.status === 'ringing' ? true : undefined;
      });
      return { pool, campaign, task: task as Task };
    };
    /** The call ends busy (retried by the campaign's policy, attempts left): where its task ends. */
    const busy = async (taskId: string) => {
      const { current_call_id } = await row(taskId);
      await t.http.post(`/api/v1/calls/${current_call_id}/simulate`).send({ action: 'busy' }).expect(200);
      return waitFor(async () => {
        const r = await row(taskId);
        return r.status === 'in_progress' ? undefined : r;
      });
    };
    const statusEvents = (taskId: string) =>
      db.query(
        `SELECT data->'task'->>'status' AS status, data->>'previous_status' AS previous FROM outbox_events
          WHERE workspace_id = $1 AND type = 'task_status' AND data->'task'->>'uuid' = $2 ORDER BY created_at`,
        [t.workspaceId, taskId],
      );

    // Cancelled: the campaign dials nothing more.
    const cancelled = await ringing();
    await t.http.post(`/api/v1/campaigns/${cancelled.campaign.uuid}/cancel`).expect(200);
    expect(await busy(cancelled.task.uuid)).toMatchObject({
      status: 'cancelled',
      failure_reason: 'campaign_cancelled',
      last_outcome: 'busy',
      attempts: 1,
    });
    expect((await statusEvents(cancelled.task.uuid)).slice(-1)).toEqual([
      { status: 'cancelled', previous: 'in_progress' },
    ]);

    // Its pool detached: cancelled as the pool's tasks not started were, and the campaign, left with none, completes.
    const detached = await ringing();
    await t.http
      .delete(`/api/v1/campaigns/${detached.campaign.uuid}/pools/${detached.pool.uuid}`)
      .expect(200);
    expect(await busy(detached.task.uuid)).toMatchObject({
      status: 'cancelled',
      failure_reason: 'pool_detached',
      last_outcome: 'busy',
    });
    await waitFor(async () =>
      (await campaignStatus(detached.campaign.uuid)) === 'completed' ? true : undefined,
    );

    // Its campaign's end_at passed (the campaign completed meanwhile): expired, as the end expired the rest.
    const now = await clock.now();
    try {
      const ending = await ringing({ end_at: new Date(now + HOUR).toISOString() });
      await clock.set(now + 2 * HOUR);
      await waitFor(async () =>
        (await campaignStatus(ending.campaign.uuid)) === 'completed' ? true : undefined,
      );
      expect(await busy(ending.task.uuid)).toMatchObject({
        status: 'expired',
        failure_reason: 'campaign_ended',
        last_outcome: 'busy',
      });
      // A completed campaign dials only tasks retried through `retry`: one left pending otherwise is not claimed.
      await db.query(
        `UPDATE outbound_tasks SET status = 'pending', scheduled_at = now() - interval '1 hour'
          WHERE workspace_id = $1 AND id = $2`,
        [t.workspaceId, ending.task.uuid],
      );
      await new Promise((r) => setTimeout(r, 2500));
      expect((await row(ending.task.uuid)).status).toBe('pending');
      const calls = await db.query(
        `SELECT count(*)::int AS n FROM calls WHERE workspace_id = $1 AND task_id = $2`,
        [t.workspaceId, ending.task.uuid],
      );
      expect(calls[0].n).toBe(1);
      await db.query(`UPDATE outbound_tasks SET status = 'expired' WHERE workspace_id = $1 AND id = $2`, [
        t.workspaceId,
        ending.task.uuid,
      ]);
    } finally {
      await clock.reset();
    }
  });

  it('a task held while pending and given a later scheduled_at is released to scheduled and dials no earlier', async () => {
    // A FIFO pool dials one member at a time: while the first one's call rings, the second one's task waits pending.
    const pool = await createPool(t, { type: 'FIFO' });
    const [first, second] = await contacts(['0009', '7951']);
    await addMembers(t, pool.uuid, [first.uuid, second.uuid]);
    const campaign = await createCampaign(t, { agent_uuid: line.agentId, pool_uuids: [pool.uuid] });
    await start(campaign.uuid);
    const tasks = await campaignTasks(campaign.uuid);
    const ringing = tasks.find((x) => x.contact_uuid === first.uuid)!;
    const waiting = tasks.find((x) => x.contact_uuid === second.uuid)!;
    const live = await taskRowWhere(ringing.uuid, `status = 'in_progress'`);
    await taskRowWhere(waiting.uuid, `status = 'pending'`);
    await t.http.post(`/api/v1/tasks/${waiting.uuid}/hold`).expect(200);
    const later = new Date((await clock.now()) + HOUR).toISOString();
    await t.http.put(`/api/v1/tasks/${waiting.uuid}`).send({ scheduled_at: later }).expect(200);
    const released = await t.http.post(`/api/v1/tasks/${waiting.uuid}/release`).expect(200);
    expect(released.body.data).toMatchObject({ status: 'scheduled', next_attempt_at: later });
    await t.http
      .post(`/api/v1/calls/${live.conversation_uuid}/simulate`)
      .send({ action: 'hangup' })
      .expect(200);
    await t.http.post(`/api/v1/campaigns/${campaign.uuid}/cancel`).expect(200);

    // A standalone task left pending with its due time ahead (as such a release left it) is not dialled early.
    const [alone] = await contacts(['7952']);
    const created = await t.http
      .post('/api/v1/tasks')
      .send({
        title: 'Later',
        type: 'make_call',
        agent_uuid: line.agentId,
        contact_uuid: alone.uuid,
        scheduled_at: later,
      })
      .expect(201);
    const id = created.body.data.uuid as string;
    await db.query(`UPDATE outbound_tasks SET status = 'pending' WHERE workspace_id = $1 AND id = $2`, [
      t.workspaceId,
      id,
    ]);
    await new Promise((r) => setTimeout(r, 2500));
    const [row] = await db.query(
      `SELECT t.status, (SELECT count(*)::int FROM calls c WHERE c.workspace_id = t.workspace_id AND c.task_id = t.id)
              AS calls FROM outbound_tasks t WHERE t.workspace_id = $1 AND t.id = $2`,
      [t.workspaceId, id],
    );
    expect(row).toEqual({ status: 'pending', calls: 0 });
    await t.http.post(`/api/v1/tasks/${id}/cancel`).expect(200);
  });

  it('a new window moves the due time of tasks waiting for it: first attempts to its next opening in their zone, retries only when excluded', async () => {
    await clock.set(Date.parse('2026-12-02T03:00:00Z')); // a Wednesday
    try {
      const rule = await createRule(t, { start_time: '09:00', end_time: '18:00' });
      const pool = await createPool(t);
      const [plain] = await contacts(['7961']);
      const [paris] = await contacts(['7962'], { timezone: 'Europe/Paris' });
      const [retrying] = await contacts(['7963']);
      await addMembers(t, pool.uuid, [plain.uuid, paris.uuid, retrying.uuid]);
      const campaign = await createCampaign(t, {
        agent_uuid: line.agentId,
        pool_uuids: [pool.uuid],
        rule_uuid: rule.uuid,
        timezone: 'UTC',
        window: { days: ALWAYS.days },
      });
      await start(campaign.uuid);
      /** Each contact's task: status and due time, read from the table. */
      const due = async () => {
        const rows: { contact_id: string; status: string; at: string }[] = await db.query(
          `SELECT contact_id, status, to_char(scheduled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI') AS at
             FROM outbound_tasks WHERE workspace_id = $1 AND campaign_id = $2`,
          [t.workspaceId, campaign.uuid],
        );
        const of = (id: string) => rows.find((r) => r.contact_id === id)!;
        return [plain, paris, retrying].map((c) => `${of(c.uuid).status} ${of(c.uuid).at}`);
      };
      expect(await due()).toEqual([
        'scheduled 2026-12-02T09:00',
        'scheduled 2026-12-02T08:00', // 09:00 in Paris
        'scheduled 2026-12-02T09:00',
      ]);
      // The third waits for a retry (an attempt made), inside the window.
      await db.query(
        `UPDATE outbound_tasks SET attempts = 1, scheduled_at = '2026-12-02T12:00:00Z'
          WHERE workspace_id = $1 AND campaign_id = $2 AND contact_id = $3`,
        [t.workspaceId, campaign.uuid, retrying.uuid],
      );

      // PUT /rules widens it: first attempts come forward to the new opening, the retry keeps its time.
      await t.http.put(`/api/v1/rules/${rule.uuid}`).send({ start_time: '05:00' }).expect(200);
      expect(await due()).toEqual([
        'scheduled 2026-12-02T05:00',
        'scheduled 2026-12-02T04:00',
        'scheduled 2026-12-02T12:00',
      ]);

      // PUT /campaigns/{uuid}/rule: another rule's window.
      const earlier = await createRule(t, { start_time: '04:30', end_time: '18:00' });
      await t.http
        .put(`/api/v1/campaigns/${campaign.uuid}/rule`)
        .send({ rule_uuid: earlier.uuid })
        .expect(200);
      expect(await due()).toEqual([
        'scheduled 2026-12-02T04:30',
        'scheduled 2026-12-02T03:30',
        'scheduled 2026-12-02T12:00',
      ]);

      // PUT /campaigns/{uuid} with a window, paused (tasks held): narrowed, the retry's time is excluded too.
      await t.http.post(`/api/v1/campaigns/${campaign.uuid}/pause`).expect(200);
      await t.http
        .put(`/api/v1/campaigns/${campaign.uuid}`)
        .send({ window: { days: ALWAYS.days, start_time: '06:00', end_time: '11:00' } })
        .expect(200);
      expect(await due()).toEqual([
        'on_hold 2026-12-02T06:00',
        'on_hold 2026-12-02T05:00',
        'on_hold 2026-12-03T06:00',
      ]);
      await t.http.post(`/api/v1/campaigns/${campaign.uuid}/cancel`).expect(200);
    } finally {
      await clock.reset();
    }
  });

  it('a cancel landing while its claimed task’s call is written waits for it, then finds the task in progress', async () => {
    const pool = await createPool(t);
    const [member] = await contacts(['7901']);
    await addMembers(t, pool.uuid, [member.uuid]);
    const campaign = await createCampaign(t, { agent_uuid: line.agentId, pool_uuids: [pool.uuid] });
    const waiting = (pattern: string) => waitingForLock(db, pattern);
    // While the calls table is locked, the dispatcher's claim commits and the task's call waits to be written.
    let cancel: Promise<{ status: number; body: Record<string, any> }> | undefined;
    let taskId = '';
    await withTableLocked(suite.databaseUrl, 'calls IN EXCLUSIVE MODE', async () => {
      await start(campaign.uuid);
      taskId = (await campaignTasks(campaign.uuid))[0].uuid;
      await waitFor(() => waiting('INSERT INTO "calls"%'), 30_000, 'the call waiting to be written');
      expect((await t.http.get(`/api/v1/tasks/${taskId}`).expect(200)).body.data.status).toBe('queued');
      cancel = t.http.post(`/api/v1/tasks/${taskId}/cancel`).then((r) => r);
      // The cancel waits for the task, which the call's transaction holds (were it answered now, the call would
      // be made for a cancelled task).
      await Promise.race([
        cancel,
        waitFor(() => waiting('%FROM outbound_tasks%FOR UPDATE%'), 30_000, 'the cancel waiting'),
      ]);
    });
    const answer = await cancel!;
    expect([answer.status, answer.body.message]).toEqual([409, 'Task is in_progress']);
    const calls: { id: string }[] = await db.query(
      `SELECT id FROM calls WHERE workspace_id = $1 AND task_id = $2`,
      [t.workspaceId, taskId],
    );
    expect(calls).toHaveLength(1);
    const done = await taskRowWhere(taskId, `status = 'completed'`);
    expect(done).toMatchObject({ conversation_uuid: calls[0].id, attempts_count: 1 });
  });

  it('a claimed task cancelled before its call is written gets no call', async () => {
    const pool = await createPool(t);
    const [member] = await contacts(['7902']);
    await addMembers(t, pool.uuid, [member.uuid]);
    const now = await clock.now();
    const campaign = await createCampaign(t, {
      agent_uuid: line.agentId,
      pool_uuids: [pool.uuid],
      start_at: new Date(now + HOUR).toISOString(),
    });
    await start(campaign.uuid);
    const [task] = await campaignTasks(campaign.uuid);
    // While the phone numbers are locked, the dispatcher claims the task and waits to read its caller number.
    try {
      await withTableLocked(suite.databaseUrl, 'phone_numbers IN ACCESS EXCLUSIVE MODE', async () => {
        await clock.set(now + HOUR + 60_000);
        await taskRowWhere(task.uuid, `status = 'queued'`);
        expect((await t.http.post(`/api/v1/tasks/${task.uuid}/cancel`).expect(200)).body.data.status).toBe(
          'cancelled',
        );
      });
    } finally {
      await clock.reset();
    }
    // The placement goes on once the numbers are free: it finds the task cancelled and writes no call.
    await new Promise((r) => setTimeout(r, 2500));
    const calls = await db.query(
      `SELECT count(*)::int AS n FROM calls WHERE workspace_id = $1 AND task_id = $2`,
      [t.workspaceId, task.uuid],
    );
    expect(calls[0].n).toBe(0);
    const after = await t.http.get(`/api/v1/tasks/${task.uuid}`).expect(200);
    expect(after.body.data).toMatchObject({
      status: 'cancelled',
      attempts_count: 0,
      conversation_uuid: null,
    });
  });

  it("recovers a dead dispatcher's claims: placed calls are kept, the others dialled once", async () => {
    const pool = await createPool(t, { type: 'Parallel' });
    const members = await contacts(['7601', '7602']);
    await addMembers(
      t,
      pool.uuid,
      members.map((c) => c.uuid),
    );
    const campaign = await createCampaign(t, {
      agent_uuid: line.agentId,
      pool_uuids: [pool.uuid],
      start_at: new Date((await clock.now()) + HOUR).toISOString(),
    });
    await start(campaign.uuid);
    const [placed, lost] = await campaignTasks(campaign.uuid);
    // A dispatcher that placed the first call, then died having claimed both (the call exists before the
    // claim is staged, so the live dispatcher cannot recover the claim first).
    const call = await app.get<CallPlacement>(CallPlacement).placeForTask(t.workspaceId, {
      agentId: line.agentId,
      to: members.find((m) => m.uuid === placed.contact_uuid)!.phone_number,
      contactId: placed.contact_uuid,
      phoneNumberId: null,
      campaignId: campaign.uuid,
      taskId: placed.uuid,
      variables: {},
      metadata: {},
    });
    await db.query(
      `UPDATE outbound_tasks SET status = 'queued', claimed_by = 'dead-host:1:00000000', scheduled_at = now(),
              claimed_at = now() - interval '10 seconds'
        WHERE workspace_id = $1 AND campaign_id = $2`,
      [t.workspaceId, campaign.uuid],
    );
    await db.query(`UPDATE outbound_campaigns SET start_at = NULL WHERE workspace_id = $1 AND id = $2`, [
      t.workspaceId,
      campaign.uuid,
    ]);
    const tasks = await allEnded(campaign.uuid);
    expect(tasks.every((x) => x.status === 'completed' && x.attempts_count === 1)).toBe(true);
    expect(tasks.find((x) => x.uuid === placed.uuid)!.conversation_uuid).toBe(call!.uuid);
    const perTask = await db.query(
      `SELECT task_id, count(*)::int AS n FROM calls WHERE workspace_id = $1 AND campaign_id = $2 GROUP BY task_id`,
      [t.workspaceId, campaign.uuid],
    );
    expect(perTask.map((r: { n: number }) => r.n)).toEqual([1, 1]);
    expect(perTask.map((r: { task_id: string }) => r.task_id).sort()).toEqual(
      [placed.uuid, lost.uuid].sort(),
    );
  });
});
