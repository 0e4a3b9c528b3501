import { DataSource } from 'typeorm';
import { OutboundClock } from '@/modules/outbound/engine/outbound-clock';
import { createAgent } from '../factories/agent.factory';
import { sandboxDestination } from '../factories/call.factory';
import { createContact } from '../factories/contact.factory';
import { addMembers, createCampaign, createPool, tasksOf } from '../factories/outbound.factory';
import { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { TestApp } from '../setup/test-app';
import { metaSignature, MetaServer } from '../support/meta-server';
import { waitingForLock, withTableLocked } from '../support/table-lock';
import { waitFor } from '../support/wait';

type Task = Record<string, any>;
const APP_SECRET = 'meta-app-secret-for-outbound';
let seq = 0;
const uniq = () => `${process.pid}${Date.now() % 100000}${++seq}`;
const newNumber = () => {
  seq += 1;
  return `+1629${300 + ((process.pid * 23 + seq) % 600)}${String((seq * 71) % 10000).padStart(4, '0')}`;
};

jest.setTimeout(90_000);

/** WhatsApp campaigns and `send_message` tasks send real templates through the messaging module. */
describe('outbound WhatsApp templates', () => {
  // Declared before the suite start so the clock is reset while the app still runs.
  afterAll(async () => {
    await clock.reset();
  });
  // Dispatchers claim every workspace's due tasks: other suites' apps must not see these.
  const suite = useTestApp({
    servers: { meta: () => MetaServer.start() },
    database: 'outbound_wa',
    env: ({ meta }) => ({
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}-outbound-wa`,
      SANDBOX_ANSWER_DELAY_MS: '100',
      PUBLIC_BASE_URL: 'https://hooks.example.test',
      META_GRAPH_URL: meta.url,
      META_ACCESS_TOKEN: 'meta-access-token',
      META_APP_SECRET: APP_SECRET,
    }),
    tenants: ['t', 'other'],
  });
  let app: TestApp;
  let meta: MetaServer;
  let t: TestTenant;
  let other: TestTenant;
  let db: DataSource;
  let clock: OutboundClock;
  const sandbox = { agentId: '', numberId: '', number: '' };
  const real = { agentId: '', numberId: '', number: '', metaId: `PN${uniq()}`, waba: `WABA${uniq()}` };

  const hooks = () => app.http('hooks.localhost');
  const notify = (value: unknown, field = 'messages') => {
    const raw = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [{ id: real.waba, changes: [{ field, value }] }],
    });
    return hooks()
      .post('/hooks/v1/meta/whatsapp')
      .set('Content-Type', 'application/json')
      .set('X-Hub-Signature-256', metaSignature(APP_SECRET, raw))
      .send(raw);
  };
  const whatsappLine = async (provider: string, whatsapp: object) => {
    const agent = await createAgent(t);
    const number = newNumber();
    const created = await t.http
      .post('/api/v1/phone-numbers')
      .send({ number, provider, whatsapp })
      .expect(201);
    await t.http
      .post(`/api/v1/agents/${agent.agent_uuid}/phone-numbers`)
      .send({ phone_number_uuid: created.body.data.uuid, channels: ['whatsapp'] })
      .expect(201);
    return { agentId: agent.agent_uuid as string, numberId: created.body.data.uuid as string, number };
  };
  const template = async (numberId: string, name: string, text: string) =>
    (
      await t.http
        .post('/api/v1/whatsapp/templates')
        .send({
          name,
          language: 'en_US',
          category: 'UTILITY',
          components: [{ type: 'BODY', text }],
          phone_number_uuid: numberId,
        })
        .expect(201)
    ).body.data as Record<string, any>;
  const templateStatus = (id: string, want: string) =>
    waitFor(async () => {
      const r = await t.http.get(`/api/v1/whatsapp/templates/${id}`).expect(200);
      return r.body.data.status === want ? true : undefined;
    });
  const setting = async (templateId: string, body: Record<string, string>) =>
    (
      await t.http
        .post('/api/v1/whatsapp/template-settings')
        .send({ template_uuid: templateId, params: { body } })
        .expect(201)
    ).body.data as Record<string, any>;
  const taskWhere = (id: string, check: (task: Task) => boolean, timeoutMs = 30_000) =>
    waitFor(
      async () => {
        const res = await t.http.get(`/api/v1/tasks/${id}`).expect(200);
        return check(res.body.data) ? (res.body.data as Task) : undefined;
      },
      timeoutMs,
      `task ${id}`,
    );
  const ended = (x: Task) => ['completed', 'failed', 'cancelled', 'expired'].includes(x.status);

  beforeAll(async () => {
    ({ meta, app, t, other } = suite);
    db = app.get<DataSource>(DataSource);
    clock = app.get<OutboundClock>(OutboundClock);
    await clock.reset();
    Object.assign(
      sandbox,
      await whatsappLine('sandbox', { phone_number_id: `SBX${uniq()}`, waba_id: `SBXWABA${uniq()}` }),
    );
    Object.assign(real, await whatsappLine('meta', { phone_number_id: real.metaId, waba_id: real.waba }));
  });

  it('a campaign over sandbox contacts sends one rendered template per contact and its tasks settle', async () => {
    const tpl = await template(sandbox.numberId, `code_${uniq()}`, 'Hi {{1}}, your code is {{2}}.');
    const s = await setting(tpl.uuid, { '1': '{{contact.name}}', '2': '{{variables.code}}' });
    await templateStatus(tpl.uuid, 'APPROVED');
    const people = [
      await createContact(t, { name: 'Ada', phone_number: sandboxDestination('3101') }),
      await createContact(t, { name: 'Grace', phone_number: sandboxDestination('3102') }),
      await createContact(t, { name: 'Edsger', phone_number: sandboxDestination('3103') }),
      // The sandbox fails messages to numbers ending 0004: that task fails with the message.
      await createContact(t, { name: 'Barbara', phone_number: sandboxDestination('0004') }),
    ];
    const pool = await createPool(t, { type: 'Parallel' });
    await addMembers(
      t,
      pool.uuid,
      people.map((p) => p.uuid),
    );
    const campaign = await createCampaign(t, {
      agent_uuid: sandbox.agentId,
      channel: 'whatsapp',
      template_setting_uuid: s.uuid,
      pool_uuids: [pool.uuid],
      variables: { code: 'K-7' },
    });
    await t.http.post(`/api/v1/campaigns/${campaign.uuid}/start`).expect(200);
    const tasks = await waitFor(
      async () => {
        const list = await tasksOf(t, `campaign_uuid=${campaign.uuid}`);
        return list.length === people.length && list.every(ended) ? list : undefined;
      },
      45_000,
      'campaign tasks ended',
    );
    const byContact = new Map(tasks.map((x) => [x.contact_uuid, x]));
    for (const p of people.slice(0, 3)) expect(byContact.get(p.uuid)).toMatchObject({ status: 'completed' });
    expect(byContact.get(people[3].uuid)).toMatchObject({ status: 'failed', last_outcome: 'failed' });

    const sent = await db.query(
      `SELECT p.to_address AS to, m.content, p.provider, p.template->>'name' AS template, count(*) OVER () AS n
         FROM provider_messages p JOIN messages m ON m.workspace_id = p.workspace_id AND m.id = p.id
        WHERE p.workspace_id = $1 AND p.phone_number_id = $2 AND p.direction = 'outbound'
        ORDER BY m.content`,
      [t.workspaceId, sandbox.numberId],
    );
    expect(sent.map((r: { to: string; content: string }) => [r.to, r.content])).toEqual(
      [
        [people[0].phone_number, 'Hi Ada, your code is K-7.'],
        [people[3].phone_number, 'Hi Barbara, your code is K-7.'],
        [people[2].phone_number, 'Hi Edsger, your code is K-7.'],
        [people[1].phone_number, 'Hi Grace, your code is K-7.'],
      ].sort((a, b) => a[1].localeCompare(b[1])),
    );
    expect(sent.every((r: { provider: string; template: string }) => r.provider === 'sandbox')).toBe(true);
    expect(sent.every((r: { template: string }) => r.template === tpl.name)).toBe(true);
    // Each task's attempt names its message; the completed ones were delivered (or read).
    const done = (await t.http.get(`/api/v1/tasks/${byContact.get(people[0].uuid)!.uuid}`).expect(200)).body
      .data;
    expect(done.attempts).toHaveLength(1);
    const message = await t.http.get(`/api/v1/messages/${done.attempts[0].message_uuid}`).expect(200);
    expect(['delivered', 'read']).toContain(message.body.data.delivery_status);
    // What the send job hands to the provider stays inside: the message's metadata is the client's (none here).
    expect(message.body.data.metadata).toEqual({});
    // Another workspace cannot see the campaign's tasks or messages.
    await other.http.get(`/api/v1/tasks/${done.uuid}`).expect(404);
    await other.http.get(`/api/v1/messages/${done.attempts[0].message_uuid}`).expect(404);
  });

  it('a campaign whose setting names a template that is not APPROVED cannot start (422)', async () => {
    const tpl = await template(sandbox.numberId, `reject_${uniq()}`, 'Hello {{1}}');
    const s = await setting(tpl.uuid, { '1': '{{contact.name}}' });
    const pool = await createPool(t);
    await addMembers(t, pool.uuid, [
      (await createContact(t, { phone_number: sandboxDestination('3201') })).uuid,
    ]);
    const campaign = await createCampaign(t, {
      agent_uuid: sandbox.agentId,
      channel: 'whatsapp',
      template_setting_uuid: s.uuid,
      pool_uuids: [pool.uuid],
    });
    const pending = await t.http.post(`/api/v1/campaigns/${campaign.uuid}/start`).expect(422);
    expect(pending.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'template_setting_uuid' });
    expect(pending.body.message).toMatch(/not APPROVED/);
    await templateStatus(tpl.uuid, 'REJECTED');
    const rejected = await t.http.post(`/api/v1/campaigns/${campaign.uuid}/start`).expect(422);
    expect(rejected.body.message).toContain('REJECTED');
    // A setting of another workspace (or none) is refused the same way; nothing was queued.
    const unknown = await createCampaign(t, {
      agent_uuid: sandbox.agentId,
      channel: 'whatsapp',
      template_setting_uuid: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e6f',
      pool_uuids: [pool.uuid],
    });
    const refused = await t.http.post(`/api/v1/campaigns/${unknown.uuid}/start`).expect(422);
    expect(refused.body.error.field).toBe('template_setting_uuid');
    expect(await tasksOf(t, `campaign_uuid=${campaign.uuid}`)).toHaveLength(0);
    const after = await t.http.get(`/api/v1/campaigns/${campaign.uuid}`).expect(200);
    expect(after.body.data.status).toBe('draft');
  });

  it('a send_message task sends its template through the Cloud API; Meta delivery statuses settle it', async () => {
    const name = `reminder_${uniq()}`;
    const tpl = await template(real.numberId, name, 'See you at {{1}}');
    await notify(
      {
        event: 'APPROVED',
        message_template_id: Number(tpl.template_id),
        message_template_name: name,
        message_template_language: 'en_US',
        reason: 'NONE',
      },
      'message_template_status_update',
    ).expect(200);
    await templateStatus(tpl.uuid, 'APPROVED');
    const customer = sandboxDestination('3301');
    const created = await t.http
      .post('/api/v1/tasks')
      .send({
        title: 'Reminder',
        type: 'send_message',
        agent_uuid: real.agentId,
        contact: { phone_number: customer, name: 'Alan' },
        scheduled_at: new Date((await clock.now()) + 1000).toISOString(),
        task_data: {
          message_type: 'whatsapp_template',
          template_uuid: tpl.uuid,
          parameters: { '1': '10:00' },
        },
      })
      .expect(201);
    const started = await taskWhere(created.body.data.uuid, (x) => x.status === 'in_progress');
    const request = await waitFor(async () =>
      meta.sent(`/${real.metaId}/messages`).find((r) => r.body.to === customer.slice(1)),
    );
    expect(request.body).toMatchObject({
      type: 'template',
      template: {
        name,
        language: { code: 'en_US' },
        components: [{ type: 'body', parameters: [{ type: 'text', text: '10:00' }] }],
      },
    });
    const messageId = started.attempts[0].message_uuid as string;
    const wamid = await waitFor(async () => {
      const m = await t.http.get(`/api/v1/messages/${messageId}`).expect(200);
      return (m.body.data.provider_message_id as string | null) ?? undefined;
    });
    // Sent alone does not settle it; delivered does.
    await notify({
      messaging_product: 'whatsapp',
      metadata: { phone_number_id: real.metaId },
      statuses: [{ id: wamid, status: 'sent', timestamp: '1763900001', recipient_id: '1' }],
    }).expect(200);
    await waitFor(async () => {
      const m = await t.http.get(`/api/v1/messages/${messageId}`).expect(200);
      return m.body.data.delivery_status === 'sent' ? true : undefined;
    });
    await new Promise((r) => setTimeout(r, 2500));
    expect((await t.http.get(`/api/v1/tasks/${created.body.data.uuid}`).expect(200)).body.data.status).toBe(
      'in_progress',
    );
    await notify({
      messaging_product: 'whatsapp',
      metadata: { phone_number_id: real.metaId },
      statuses: [{ id: wamid, status: 'delivered', timestamp: '1763900002', recipient_id: '1' }],
    }).expect(200);
    const completed = await taskWhere(created.body.data.uuid, (x) => x.status === 'completed');
    expect(completed.attempts[0]).toMatchObject({ message_uuid: messageId, outcome: 'completed' });
  });

  it('a message frees its campaign slot once handed to Meta; sent with nothing later for 24 h completes it', async () => {
    const name = `notice_${uniq()}`;
    const tpl = await template(real.numberId, name, 'Notice for {{1}}');
    await notify(
      {
        event: 'APPROVED',
        message_template_id: Number(tpl.template_id),
        message_template_name: name,
        message_template_language: 'en_US',
        reason: 'NONE',
      },
      'message_template_status_update',
    ).expect(200);
    await templateStatus(tpl.uuid, 'APPROVED');
    const s = await setting(tpl.uuid, { '1': '{{contact.name}}' });
    const people = [
      await createContact(t, { name: 'Ann', phone_number: sandboxDestination('3501') }),
      await createContact(t, { name: 'Bob', phone_number: sandboxDestination('3502') }),
      await createContact(t, { name: 'Cy', phone_number: sandboxDestination('3503') }),
    ];
    const pool = await createPool(t);
    await addMembers(
      t,
      pool.uuid,
      people.map((p) => p.uuid),
    );
    const campaign = await createCampaign(t, {
      agent_uuid: real.agentId,
      channel: 'whatsapp',
      template_setting_uuid: s.uuid,
      pool_uuids: [pool.uuid],
      max_concurrency: 1,
    });
    await t.http.post(`/api/v1/campaigns/${campaign.uuid}/start`).expect(200);
    // No status ever comes back from Meta, yet one slot sends all three, one after the other.
    const toMeta = () =>
      meta
        .sent(`/${real.metaId}/messages`)
        .filter((r) => r.body.template?.name === name)
        .map((r) => `+${r.body.to as string}`);
    await waitFor(async () => (toMeta().length === 3 ? true : undefined), 20_000, 'three templates at Meta');
    expect(toMeta().sort()).toEqual(people.map((p) => p.phone_number as string).sort());
    const live = await tasksOf(t, `campaign_uuid=${campaign.uuid}`);
    expect(live.map((x) => x.status)).toEqual(['in_progress', 'in_progress', 'in_progress']);
    // One is delivered, one is only sent: after 24 h without more news the sent one completes too; the third,
    // still queued at Meta's side, stays in progress.
    const messageOf = async (task: Task) => {
      const full = (await t.http.get(`/api/v1/tasks/${task.uuid}`).expect(200)).body.data;
      const id = full.attempts[0].message_uuid as string;
      const wamid = await waitFor(async () => {
        const m = await t.http.get(`/api/v1/messages/${id}`).expect(200);
        return (m.body.data.provider_message_id as string | null) ?? undefined;
      });
      return { id, wamid };
    };
    const byContact = new Map(live.map((x) => [x.contact_uuid, x]));
    const [delivered, sent, silent] = people.map((p) => byContact.get(p.uuid)!);
    const status = async (task: Task, value: string) => {
      const { id, wamid } = await messageOf(task);
      await notify({
        messaging_product: 'whatsapp',
        metadata: { phone_number_id: real.metaId },
        statuses: [{ id: wamid, status: value, timestamp: '1763900003', recipient_id: '1' }],
      }).expect(200);
      await waitFor(async () => {
        const m = await t.http.get(`/api/v1/messages/${id}`).expect(200);
        return m.body.data.delivery_status === value ? true : undefined;
      });
    };
    await status(delivered, 'delivered');
    await status(sent, 'sent');
    await taskWhere(delivered.uuid, (x) => x.status === 'completed');
    await new Promise((r) => setTimeout(r, 2500));
    expect((await t.http.get(`/api/v1/tasks/${sent.uuid}`).expect(200)).body.data.status).toBe('in_progress');
    await clock.set(Date.now() + 24 * 3600_000 + 60_000);
    try {
      const done = await taskWhere(sent.uuid, (x) => x.status === 'completed');
      expect(done.last_outcome).toBe('completed');
      await new Promise((r) => setTimeout(r, 2500));
      expect((await t.http.get(`/api/v1/tasks/${silent.uuid}`).expect(200)).body.data.status).toBe(
        'in_progress',
      );
    } finally {
      await clock.reset();
    }
  });

  it('a task refused before sending fails with the reason and is not retried', async () => {
    const task = async (body: object) =>
      t.http
        .post('/api/v1/tasks')
        .send({
          title: 'Template',
          type: 'send_message',
          agent_uuid: sandbox.agentId,
          scheduled_at: new Date((await clock.now()) + 1000).toISOString(),
          ...body,
        })
        .expect(201);
    const unknown = await task({
      contact: { phone_number: sandboxDestination('3401') },
      task_data: { message_type: 'whatsapp_template', template_uuid: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e6f' },
    });
    const tpl = await template(sandbox.numberId, `reject_${uniq()}`, 'Hi');
    await templateStatus(tpl.uuid, 'REJECTED');
    const paused = await task({
      contact: { phone_number: sandboxDestination('3402') },
      task_data: { message_type: 'whatsapp_template', template_uuid: tpl.uuid },
    });
    const blocked = sandboxDestination('3403');
    await t.http
      .post('/api/v1/blacklist')
      .send({ phone_number: blocked, reason: 'asked us to stop', is_permanent: true })
      .expect(201);
    const blacklisted = await task({
      contact: { phone_number: blocked },
      task_data: { message_type: 'whatsapp_template', template_uuid: tpl.uuid },
    });
    const failed = async (id: string) => taskWhere(id, (x) => x.status === 'failed');
    expect((await failed(unknown.body.data.uuid)).failure_reason).toBe('validation_error:template_uuid');
    expect((await failed(blacklisted.body.data.uuid)).failure_reason).toBe('blacklisted');
    const notApproved = await failed(paused.body.data.uuid);
    expect(notApproved.failure_reason).toBe('template_not_approved');
    expect(notApproved.attempts).toHaveLength(0);
    const sentTo = await db.query(
      `SELECT count(*)::int AS n FROM provider_messages WHERE workspace_id = $1 AND to_address = ANY($2)`,
      [t.workspaceId, [blocked]],
    );
    expect(sentTo[0].n).toBe(0);
  });

  it('a WhatsApp campaign whose number is on another Business Account than its template cannot start (422)', async () => {
    const tpl = await template(sandbox.numberId, `account_${uniq()}`, 'Hello {{1}}');
    const s = await setting(tpl.uuid, { '1': '{{contact.name}}' });
    await templateStatus(tpl.uuid, 'APPROVED');
    // A second WhatsApp number of the same agent, on an account of its own.
    const elsewhere = await t.http
      .post('/api/v1/phone-numbers')
      .send({
        number: newNumber(),
        provider: 'meta',
        whatsapp: { phone_number_id: `PN${uniq()}`, waba_id: `WABA${uniq()}` },
      })
      .expect(201);
    await t.http
      .post(`/api/v1/agents/${sandbox.agentId}/phone-numbers`)
      .send({ phone_number_uuid: elsewhere.body.data.uuid, channels: ['whatsapp'] })
      .expect(201);
    const pool = await createPool(t);
    await addMembers(t, pool.uuid, [
      (await createContact(t, { phone_number: sandboxDestination('3701') })).uuid,
    ]);
    const body = {
      agent_uuid: sandbox.agentId,
      channel: 'whatsapp',
      template_setting_uuid: s.uuid,
      pool_uuids: [pool.uuid],
    };
    const wrong = await createCampaign(t, { ...body, phone_number_uuid: elsewhere.body.data.uuid });
    const refused = await t.http.post(`/api/v1/campaigns/${wrong.uuid}/start`).expect(422);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'phone_number_uuid' });
    expect(await tasksOf(t, `campaign_uuid=${wrong.uuid}`)).toHaveLength(0);
    // Without a number named, the agent's number on the template's account is found: it starts.
    const right = await createCampaign(t, body);
    await t.http.post(`/api/v1/campaigns/${right.uuid}/start`).expect(200);
    await t.http.post(`/api/v1/campaigns/${right.uuid}/cancel`).expect(200);
  });

  it('POST /whatsapp/template to a blacklisted number is 409 BLACKLISTED and stores nothing', async () => {
    const tpl = await template(sandbox.numberId, `listed_${uniq()}`, 'Hello {{1}}');
    await templateStatus(tpl.uuid, 'APPROVED');
    const to = sandboxDestination('3601');
    await t.http
      .post('/api/v1/blacklist')
      .send({ phone_number: to, reason: 'Asked us to stop', is_permanent: true })
      .expect(201);
    const refused = await t.http
      .post('/api/v1/whatsapp/template')
      .send({ agent_uuid: sandbox.agentId, to, template_uuid: tpl.uuid, parameters: { '1': 'Ada' } })
      .expect(409);
    expect(refused.body.error.code).toBe('BLACKLISTED');
    const stored = await db.query(
      `SELECT count(*)::int AS n FROM provider_messages WHERE workspace_id = $1 AND to_address = $2`,
      [t.workspaceId, to],
    );
    expect(stored[0].n).toBe(0);
  });

  describe('a queued send_message task cancelled while its template is being sent', () => {
    const waiting = (pattern: string) => waitingForLock(db, pattern);
    const rowStatus = (id: string, want: string) =>
      waitFor(async () => {
        const [row] = await db.query(
          `SELECT status FROM outbound_tasks WHERE workspace_id = $1 AND id = $2`,
          [t.workspaceId, id],
        );
        return row?.status === want ? true : undefined;
      });
    const sentTo = async (to: string) =>
      (
        await db.query(
          `SELECT count(*)::int AS n FROM provider_messages WHERE workspace_id = $1 AND to_address = $2`,
          [t.workspaceId, to],
        )
      )[0].n as number;
    const templateTask = async (to: string) => {
      const tpl = await template(sandbox.numberId, `race_${uniq()}`, 'Your parcel {{1}} is on its way.');
      await templateStatus(tpl.uuid, 'APPROVED');
      return async () =>
        (
          await t.http
            .post('/api/v1/tasks')
            .send({
              title: 'Parcel',
              type: 'send_message',
              agent_uuid: sandbox.agentId,
              contact: { phone_number: to },
              scheduled_at: new Date((await clock.now()) + 1000).toISOString(),
              task_data: {
                message_type: 'whatsapp_template',
                template_uuid: tpl.uuid,
                parameters: { '1': 'P-1' },
              },
            })
            .expect(201)
        ).body.data.uuid as string;
    };

    it('a cancel that lands before the message is stored wins: nothing is stored or sent', async () => {
      const to = sandboxDestination('3501');
      const create = await templateTask(to);
      // While the templates are locked, the dispatcher claims the task and waits to read its template.
      let id = '';
      await withTableLocked(suite.databaseUrl, 'whatsapp_templates IN ACCESS EXCLUSIVE MODE', async () => {
        id = await create();
        await rowStatus(id, 'queued');
        // (TypeORM's statement names the entity first; the table name lies past what pg_stat_activity keeps.)
        await waitFor(() => waiting('%"WhatsappTemplate"%'), 30_000, 'the send waiting for its template');
        const cancelled = await t.http.post(`/api/v1/tasks/${id}/cancel`).expect(200);
        expect(cancelled.body.data.status).toBe('cancelled');
      });
      // The send goes on once the lock is gone, finds the task cancelled and stores nothing.
      await waitFor(async () => ((await waiting('%"WhatsappTemplate"%')) ? undefined : true));
      await new Promise((r) => setTimeout(r, 1500));
      expect(await sentTo(to)).toBe(0);
      const task = (await t.http.get(`/api/v1/tasks/${id}`).expect(200)).body.data;
      expect(task).toMatchObject({ status: 'cancelled', attempts_count: 0, conversation_uuid: null });
    });

    it('a cancel that arrives while the message is being stored waits for it, then finds the task in progress', async () => {
      const to = sandboxDestination('3502');
      const create = await templateTask(to);
      // While provider messages cannot be written, the send holds the task (started) and waits to store its record.
      let id = '';
      let cancel: Promise<{ status: number; body: Record<string, any> }> | undefined;
      await withTableLocked(suite.databaseUrl, 'provider_messages IN EXCLUSIVE MODE', async () => {
        id = await create();
        await waitFor(
          () => waiting('INSERT INTO%provider_messages%'),
          30_000,
          'the record waiting to be written',
        );
        cancel = t.http.post(`/api/v1/tasks/${id}/cancel`).then((r) => r);
        await Promise.race([
          cancel,
          waitFor(() => waiting('%FROM outbound_tasks%FOR UPDATE%'), 30_000, 'the cancel waiting'),
        ]);
      });
      const answer = await cancel!;
      expect([answer.status, answer.body.message]).toEqual([409, 'Task is in_progress']);
      const done = await taskWhere(id, (x) => x.status === 'completed');
      expect(done.attempts).toHaveLength(1);
      expect(await sentTo(to)).toBe(1);
      const message = await t.http.get(`/api/v1/messages/${done.attempts[0].message_uuid}`).expect(200);
      expect(message.body.data.to).toBe(to);
    });
  });
});
