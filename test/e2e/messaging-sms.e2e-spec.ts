import { DataSource } from 'typeorm';
import { createAgent } from '../factories/agent.factory';
import { sandboxDestination } from '../factories/call.factory';
import { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { TestApp } from '../setup/test-app';
import { defaultAnswer, LlmServer } from '../support/llm-server';
import { twilioSignature, TwilioMessagingServer as TwilioServer } from '../support/twilio-messaging-server';
import { waitFor } from '../support/wait';

const PUBLIC = 'https://hooks.example.test';
const AUTH_TOKEN = 'twilio-auth-token-for-tests';
let numberSeq = 0;
const newNumber = () => {
  numberSeq += 1;
  return `+1628${300 + ((process.pid * 17 + numberSeq) % 600)}${String((numberSeq * 37) % 10000).padStart(4, '0')}`;
};

describe('messaging: SMS through Twilio and the sandbox, statuses, opt-out', () => {
  const suite = useTestApp({
    servers: { llm: () => LlmServer.start(), twilio: () => TwilioServer.start() },
    env: ({ llm, twilio }) => ({
      LLM_BASE_URL: llm.url,
      LLM_MODEL: 'test-model',
      SANDBOX_ANSWER_DELAY_MS: '100',
      PUBLIC_BASE_URL: PUBLIC,
      TWILIO_ACCOUNT_SID: 'ACtest0123456789',
      TWILIO_AUTH_TOKEN: AUTH_TOKEN,
      TWILIO_API_URL: twilio.url,
    }),
    tenants: ['t', 'other'],
  });
  let llm: LlmServer;
  let twilio: TwilioServer;
  let app: TestApp;
  let t: TestTenant;
  let other: TestTenant;
  let db: DataSource;
  let agentId: string;
  let line: { id: string; number: string };
  let sandbox: { id: string; number: string };

  const hooks = () => app.http('hooks.localhost');
  const signedSms = (path: string, params: Record<string, string>, signature?: string) =>
    hooks()
      .post(path)
      .type('form')
      .set('X-Twilio-Signature', signature ?? twilioSignature(AUTH_TOKEN, `${PUBLIC}${path}`, params))
      .send(params);
  let sid = 0;
  const inbound = (from: string, to: string, body: string, messageSid = `SM${Date.now()}${++sid}`) =>
    signedSms('/hooks/v1/twilio/sms/inbound', {
      From: from,
      To: to,
      Body: body,
      MessageSid: messageSid,
      NumMedia: '0',
    });
  const register = async (tenant: TestTenant, provider: string, channels: string[], agent = agentId) => {
    const number = newNumber();
    const res = await tenant.http.post('/api/v1/phone-numbers').send({ number, provider }).expect(201);
    if (channels.length)
      await tenant.http
        .post(`/api/v1/agents/${agent}/phone-numbers`)
        .send({ phone_number_uuid: res.body.data.uuid, channels })
        .expect(201);
    return { id: res.body.data.uuid as string, number };
  };
  const conversationOf = async (phone: string) =>
    waitFor(async () => {
      const res = await t.http
        .get(`/api/v1/conversations?channel=sms&phone=${encodeURIComponent(phone)}`)
        .expect(200);
      return res.body.data.items[0] as { uuid: string; agent_uuid: string | null } | undefined;
    });
  const messagesOf = async (conversation: string) =>
    (await t.http.get(`/api/v1/conversations/${conversation}/messages?per_page=100`).expect(200)).body.data
      .items as {
      uuid: string;
      sender: string;
      content: string;
    }[];
  const sentTo = (to: string) => twilio.messages.filter((m) => m.params.To === to);

  beforeAll(async () => {
    ({ llm, twilio, app, t, other } = suite);
    db = app.get<DataSource>(DataSource);
    agentId = (await createAgent(t)).agent_uuid;
    line = await register(t, 'twilio', ['sms']);
    sandbox = await register(t, 'sandbox', ['sms']);
  });

  it('an inbound SMS reaches the bound agent and the reply leaves from the same number through Twilio', async () => {
    const customer = sandboxDestination('1111');
    const res = await inbound(customer, line.number, 'Where is my order?');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/xml/);
    expect(res.text).toContain('<Response/>');
    const sent = await waitFor(async () => sentTo(customer)[0]);
    expect(sent.params).toMatchObject({ From: line.number, To: customer, Body: 'Hello from the model.' });
    expect(sent.accountSid).toBe('ACtest0123456789');
    expect(sent.authorization).toBe(
      `Basic ${Buffer.from(`ACtest0123456789:${AUTH_TOKEN}`).toString('base64')}`,
    );
    const conversation = await conversationOf(customer);
    expect(conversation.agent_uuid).toBe(agentId);
    const messages = await messagesOf(conversation.uuid);
    expect(messages.map((m) => [m.sender, m.content])).toEqual([
      ['customer', 'Where is my order?'],
      ['agent', 'Hello from the model.'],
    ]);
    expect(sent.params.StatusCallback).toBe(`${PUBLIC}/hooks/v1/twilio/messages/${messages[1].uuid}/status`);
    const reply = await waitFor(async () => {
      const r = await t.http.get(`/api/v1/messages/${messages[1].uuid}`).expect(200);
      return r.body.data.provider_message_id ? r.body.data : undefined;
    });
    expect(reply).toMatchObject({
      direction: 'outbound',
      channel: 'sms',
      from: line.number,
      to: customer,
      provider: 'twilio',
      provider_message_id: sent.sid,
      delivery_status: 'queued',
      is_simulation: false,
    });
    const received = await t.http.get(`/api/v1/messages/${messages[0].uuid}`).expect(200);
    expect(received.body.data).toMatchObject({
      direction: 'inbound',
      delivery_status: 'received',
      from: customer,
      to: line.number,
    });
    // Another workspace cannot read it.
    await other.http.get(`/api/v1/messages/${messages[1].uuid}`).expect(404);
  });

  it('a first message from a new number opens one conversation, its thread, its session and one started event', async () => {
    const customer = sandboxDestination('1121');
    await inbound(customer, line.number, 'Hi, first time here').expect(200);
    const conversation = await conversationOf(customer);
    await waitFor(async () => ((await messagesOf(conversation.uuid)).length === 2 ? true : undefined));
    const count = async (sql: string) =>
      ((await db.query(sql, [t.workspaceId, customer])) as { n: number }[])[0].n;
    expect(
      await count(`SELECT count(*)::int AS n FROM conversations WHERE workspace_id = $1 AND phone = $2`),
    ).toBe(1);
    expect(
      await count(
        `SELECT count(*)::int AS n FROM messaging_threads WHERE workspace_id = $1 AND customer_address = $2`,
      ),
    ).toBe(1);
    const sessions = await waitFor(async () => {
      const rows = (await db.query(
        `SELECT status, message_count FROM sessions WHERE workspace_id = $1 AND conversation_id = $2`,
        [t.workspaceId, conversation.uuid],
      )) as { status: string; message_count: number }[];
      return rows[0]?.message_count === 2 ? rows : undefined;
    });
    expect(sessions).toEqual([{ status: 'active', message_count: 2 }]);
    const thread = (await db.query(
      `SELECT id, channel, phone_number_id, customer_address, handled_by FROM messaging_threads
        WHERE workspace_id = $1 AND id = $2`,
      [t.workspaceId, conversation.uuid],
    )) as unknown[];
    expect(thread).toEqual([
      {
        id: conversation.uuid,
        channel: 'sms',
        phone_number_id: line.id,
        customer_address: customer,
        handled_by: 'AI',
      },
    ]);
    const events = (await db.query(
      `SELECT data FROM outbox_events WHERE workspace_id = $1 AND type = 'conversation_status'
          AND data->'conversation'->>'uuid' = $2`,
      [t.workspaceId, conversation.uuid],
    )) as { data: { change: string; conversation: unknown } }[];
    expect(events).toHaveLength(1);
    expect(events[0].data.change).toBe('started');
    const {
      handled_by: handledBy,
      usage,
      ...view
    } = (await t.http.get(`/api/v1/conversations/${conversation.uuid}`).expect(200)).body.data;
    expect(handledBy).toBe('AI'); // read through GET, not carried in events
    expect(usage).toMatchObject({ cost: null }); // likewise usage: GET only
    expect(events[0].data.conversation).toEqual({
      ...view,
      last_message_at: null,
      updated_at: view.created_at,
    });
  });

  it('a repeated delivery (same MessageSid) is processed once', async () => {
    const customer = sandboxDestination('1112');
    await inbound(customer, line.number, 'Hi there', 'SMrepeat0001').expect(200);
    await inbound(customer, line.number, 'Hi there', 'SMrepeat0001').expect(200);
    await waitFor(async () => sentTo(customer)[0]);
    const conversation = await conversationOf(customer);
    // The second copy is handled after the first (same thread), so once the first reply is stored it is settled.
    await waitFor(async () => ((await messagesOf(conversation.uuid)).length >= 2 ? true : undefined));
    await inbound(customer, line.number, 'Second', 'SMrepeat0002').expect(200);
    await waitFor(async () => (sentTo(customer).length === 2 ? true : undefined));
    const messages = await messagesOf(conversation.uuid);
    expect(messages.map((m) => m.content)).toEqual([
      'Hi there',
      'Hello from the model.',
      'Second',
      'Hello from the model.',
    ]);
  });

  it('a missing or wrong signature is 401 INVALID_SIGNATURE and stores nothing', async () => {
    const customer = sandboxDestination('1113');
    const params = { From: customer, To: line.number, Body: 'x', MessageSid: 'SMbad0001', NumMedia: '0' };
    const none = await hooks().post('/hooks/v1/twilio/sms/inbound').type('form').send(params);
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('INVALID_SIGNATURE');
    // Signed over the Host the request reached instead of PUBLIC_BASE_URL: refused too.
    const hostSigned = twilioSignature(
      AUTH_TOKEN,
      `https://hooks.localhost/hooks/v1/twilio/sms/inbound`,
      params,
    );
    await signedSms('/hooks/v1/twilio/sms/inbound', params, hostSigned).expect(401);
    await signedSms(
      '/hooks/v1/twilio/sms/inbound',
      { ...params, Body: 'tampered' },
      twilioSignature(AUTH_TOKEN, `${PUBLIC}/hooks/v1/twilio/sms/inbound`, params),
    ).expect(401);
    // A signed message afterwards proves the hook works; the refused ones left nothing behind.
    await inbound(customer, line.number, 'Signed one').expect(200);
    const conversation = await conversationOf(customer);
    await waitFor(async () => ((await messagesOf(conversation.uuid)).length === 2 ? true : undefined));
    expect((await messagesOf(conversation.uuid)).map((m) => m.content)).toEqual([
      'Signed one',
      'Hello from the model.',
    ]);
    const rows = await db.query(
      `SELECT count(*)::int AS n FROM provider_messages WHERE provider_message_id = 'SMbad0001'`,
    );
    expect(rows[0].n).toBe(0);
  });

  it('status callbacks move a message forward only and emit message_status', async () => {
    const to = sandboxDestination('1114');
    const res = await t.http
      .post('/api/v1/sms/send')
      .send({ agent_uuid: agentId, to, body: 'Your order ships today.', phone_number_uuid: line.id })
      .expect(201);
    expect(res.body.message).toBe('SMS message sent successfully');
    expect(res.body.data).toMatchObject({
      delivery_status: 'queued',
      from: line.number,
      to,
      provider: 'twilio',
      sender: 'agent',
    });
    const id = res.body.data.uuid as string;
    const sent = await waitFor(async () => sentTo(to)[0]);
    const status = (MessageStatus: string, extra: Record<string, string> = {}) =>
      signedSms(`/hooks/v1/twilio/messages/${id}/status`, {
        MessageSid: sent.sid,
        MessageStatus,
        ...extra,
      }).expect(200);
    const statusOf = (want: string) =>
      waitFor(async () => {
        const r = await t.http.get(`/api/v1/messages/${id}`).expect(200);
        return r.body.data.delivery_status === want ? r.body.data : undefined;
      });
    await status('sent');
    await statusOf('sent');
    await status('delivered');
    await statusOf('delivered');
    await status('sent'); // late: ignored
    await status('delivered'); // repeated: ignored
    await status('failed', { ErrorCode: '30003' }); // a final status after delivered still applies
    const failed = await statusOf('failed');
    expect(failed.error).toEqual({ code: '30003', message: 'Twilio error 30003' });
    await status('delivered');
    await new Promise((r) => setTimeout(r, 300));
    expect((await t.http.get(`/api/v1/messages/${id}`).expect(200)).body.data.delivery_status).toBe('failed');
    const events = await db.query(
      `SELECT data->>'previous_status' AS previous, data->'message'->>'delivery_status' AS status
         FROM outbox_events WHERE workspace_id = $1 AND type = 'message_status' AND data->'message'->>'uuid' = $2
        ORDER BY created_at, id`,
      [t.workspaceId, id],
    );
    expect(events).toEqual([
      { previous: 'queued', status: 'sent' },
      { previous: 'sent', status: 'delivered' },
      { previous: 'delivered', status: 'failed' },
    ]);
    // A bad signature on the status hook changes nothing.
    await hooks()
      .post(`/hooks/v1/twilio/messages/${id}/status`)
      .type('form')
      .send({ MessageStatus: 'read' })
      .expect(401);
  });

  it('a Twilio refusal ends the message failed with its code', async () => {
    const to = sandboxDestination('0004');
    const res = await t.http
      .post('/api/v1/sms/send')
      .send({ agent_uuid: agentId, to, body: 'x', phone_number_uuid: line.id })
      .expect(201);
    const failed = await waitFor(async () => {
      const r = await t.http.get(`/api/v1/messages/${res.body.data.uuid}`).expect(200);
      return r.body.data.delivery_status === 'failed' ? r.body.data : undefined;
    });
    expect(failed.error.code).toBe('21211');
  });

  it('a Twilio outage (503) is tried again until the message leaves, not ended failed', async () => {
    const to = sandboxDestination('1016');
    twilio.unavailable = 1;
    const res = await t.http
      .post('/api/v1/sms/send')
      .send({ agent_uuid: agentId, to, body: 'after the outage', phone_number_uuid: line.id })
      .expect(201);
    const sent = await waitFor(async () => twilio.messages.find((m) => m.params.To === to), 15_000);
    expect(sent.params.Body).toBe('after the outage');
    expect(twilio.turnedAway).toBeGreaterThanOrEqual(1);
    const msg = await waitFor(async () => {
      const r = await t.http.get(`/api/v1/messages/${res.body.data.uuid}`).expect(200);
      return r.body.data.provider_message_id ? r.body.data : undefined;
    });
    expect(msg.delivery_status).not.toBe('failed');
    expect(msg.provider_message_id).toBe(sent.sid);
  });

  it('STOP blacklists the sender without a reply, so the next send is 409; START lifts it', async () => {
    const customer = sandboxDestination('1115');
    await inbound(customer, line.number, 'hello').expect(200);
    await waitFor(async () => sentTo(customer)[0]);
    await inbound(customer, line.number, '  Stop ').expect(200);
    const entry = await waitFor(async () => {
      const r = await t.http.get('/api/v1/blacklist?source=opt_out').expect(200);
      return (r.body.data.items as { phone_number: string }[]).find((e) => e.phone_number === customer);
    });
    expect(entry).toMatchObject({ type: 'Phone', source: 'opt_out', is_permanent: true, expires_at: null });
    const send = await t.http
      .post('/api/v1/sms/send')
      .send({ agent_uuid: agentId, to: customer, body: 'Offer' });
    expect(send.status).toBe(409);
    expect(send.body.error.code).toBe('BLACKLISTED');
    await inbound(customer, line.number, 'START').expect(200);
    await waitFor(async () => {
      const r = await t.http.get('/api/v1/blacklist?source=opt_out').expect(200);
      return (r.body.data.items as { phone_number: string }[]).some((e) => e.phone_number === customer)
        ? undefined
        : true;
    });
    expect(sentTo(customer)).toHaveLength(1); // neither STOP nor START got a model reply
    await t.http
      .post('/api/v1/sms/send')
      .send({ agent_uuid: agentId, to: customer, body: 'Welcome back' })
      .expect(201);
    const conversation = await conversationOf(customer);
    expect((await messagesOf(conversation.uuid)).map((m) => m.content)).toEqual([
      'hello',
      'Hello from the model.',
      '  Stop ',
      'START',
      'Welcome back',
    ]);
  });

  it('a blacklisted customer is answered nothing, in an open conversation and a new one, until the entry goes', async () => {
    const known = sandboxDestination('1119');
    const stranger = sandboxDestination('1120');
    await inbound(known, line.number, 'first').expect(200);
    await waitFor(async () => sentTo(known)[0]);
    const entries: string[] = [];
    for (const phone of [known, stranger]) {
      const r = await t.http
        .post('/api/v1/blacklist')
        .send({ phone_number: phone, reason: 'Asked not to be contacted', is_permanent: true })
        .expect(201);
      entries.push(r.body.data.uuid as string);
    }
    await inbound(known, line.number, 'second').expect(200);
    await inbound(stranger, line.number, 'hello?').expect(200);
    const open = await conversationOf(known);
    const fresh = await conversationOf(stranger);
    await waitFor(async () => ((await messagesOf(open.uuid)).length === 3 ? true : undefined));
    await waitFor(async () => ((await messagesOf(fresh.uuid)).length === 1 ? true : undefined));
    for (const uuid of entries) await t.http.delete(`/api/v1/blacklist/${uuid}`).expect(200);
    await inbound(known, line.number, 'third').expect(200);
    await waitFor(async () => (sentTo(known).length === 2 ? true : undefined));
    expect(sentTo(stranger)).toHaveLength(0);
    expect((await messagesOf(open.uuid)).map((m) => m.content)).toEqual([
      'first',
      'Hello from the model.',
      'second',
      'third',
      'Hello from the model.',
    ]);
  });

  it('a number with no sms binding keeps the message in an agentless conversation and replies nothing', async () => {
    const unbound = await register(t, 'twilio', []);
    const customer = sandboxDestination('1116');
    await inbound(customer, unbound.number, 'Anyone there?').expect(200);
    const conversation = await conversationOf(customer);
    expect(conversation.agent_uuid).toBeNull();
    await waitFor(async () => ((await messagesOf(conversation.uuid)).length === 1 ? true : undefined));
    expect((await messagesOf(conversation.uuid))[0]).toMatchObject({
      sender: 'customer',
      content: 'Anyone there?',
    });
    expect(sentTo(customer)).toHaveLength(0);
    // STOP to that number opts the sender out all the same (the number is the workspace's), and START lifts it.
    const optedOut = () =>
      t.http
        .get('/api/v1/blacklist?source=opt_out')
        .expect(200)
        .then((r) =>
          (r.body.data.items as { phone_number: string }[]).some((e) => e.phone_number === customer),
        );
    await inbound(customer, unbound.number, 'STOP').expect(200);
    await waitFor(async () => ((await optedOut()) ? true : undefined));
    await inbound(customer, unbound.number, 'start').expect(200);
    await waitFor(async () => ((await optedOut()) ? undefined : true));
    expect(sentTo(customer)).toHaveLength(0);
  });

  it('turns of one conversation run one at a time in arrival order', async () => {
    const customer = sandboxDestination('1117');
    llm.latencyMs = 80;
    try {
      for (let i = 1; i <= 5; i++) await inbound(customer, line.number, `message ${i}`).expect(200);
      await waitFor(async () => (sentTo(customer).length === 5 ? true : undefined), 20_000);
    } finally {
      llm.latencyMs = 0;
    }
    const conversation = await conversationOf(customer);
    const messages = await messagesOf(conversation.uuid);
    expect(messages.map((m) => m.content)).toEqual(
      [1, 2, 3, 4, 5].flatMap((i) => [`message ${i}`, 'Hello from the model.']),
    );
  });

  it('sandbox: POST /sms/send goes queued → sent → delivered; 0004 fails; the simulation answers the reply', async () => {
    const to = sandboxDestination('1118');
    const res = await t.http
      .post('/api/v1/sms/send')
      .send({ agentId, phoneNumber: to, message: 'Hi from alias', phone_number_uuid: sandbox.id })
      .expect(201);
    expect(res.body.data).toMatchObject({
      provider: 'sandbox',
      is_simulation: true,
      delivery_status: 'queued',
      content: 'Hi from alias',
    });
    const delivered = await waitFor(async () => {
      const r = await t.http.get(`/api/v1/messages/${res.body.data.uuid}`).expect(200);
      return r.body.data.delivery_status === 'delivered' ? r.body.data : undefined;
    });
    expect(delivered.provider_message_id).toMatch(/^SM[0-9a-f]{32}$/);
    const bad = await t.http
      .post('/api/v1/sms/send')
      .send({ agent_uuid: agentId, to: sandboxDestination('0004'), body: 'x', phone_number_uuid: sandbox.id })
      .expect(201);
    await waitFor(async () => {
      const r = await t.http.get(`/api/v1/messages/${bad.body.data.uuid}`).expect(200);
      return r.body.data.delivery_status === 'failed' ? true : undefined;
    });
    const sim = await t.http
      .post('/api/v1/sms/simulate-inbound')
      .send({ to: sandbox.number, from: to, body: 'Thanks!' })
      .expect(201);
    expect(sim.body.data.message).toMatchObject({
      content: 'Thanks!',
      direction: 'inbound',
      provider: 'sandbox',
    });
    expect(sim.body.data.reply).toMatchObject({
      content: 'Hello from the model.',
      from: sandbox.number,
      to,
      delivery_status: 'queued',
    });
    expect(sim.body.data.conversation).toMatchObject({ channel: 'sms', agent_uuid: agentId });
    // The sandbox takes sandbox numbers only.
    await t.http
      .post('/api/v1/sms/simulate-inbound')
      .send({ to: line.number, from: to, body: 'x' })
      .expect(409);
  });

  it('a guard forward hands the conversation to a human: its say goes out, later turns get no reply', async () => {
    const agent = (await createAgent(t)).agent_uuid as string;
    await t.http
      .post(`/api/v1/agents/${agent}/guard-rules`)
      .send({
        name: 'Human',
        when_condition: 'The customer asks for a human',
        example_phrases: ['I want a human'],
        then_action: 'forward',
        say_before_forwarding: 'A colleague will take over.',
        destination_type: 'phone_number',
        destination: '+14155550100',
      })
      .expect(201);
    const number = await register(t, 'sandbox', ['sms'], agent);
    const customer = sandboxDestination('1119');
    llm.respond = (call) =>
      call.kind === 'classify' && call.messages[1].content.includes('human')
        ? {
            content: JSON.stringify({
              scores: [{ id: JSON.parse(call.messages[1].content).candidates[0].id, score: 0.95 }],
            }),
          }
        : call.kind === 'classify'
          ? { content: JSON.stringify({ scores: [] }) }
          : { content: 'Hello from the model.' };
    try {
      const first = await t.http
        .post('/api/v1/sms/simulate-inbound')
        .send({ to: number.number, from: customer, body: 'I want a human' })
        .expect(201);
      expect(first.body.data.reply).toMatchObject({
        content: 'A colleague will take over.',
        delivery_status: 'queued',
      });
      const replies = llm.callsOf('reply').length;
      const second = await t.http
        .post('/api/v1/sms/simulate-inbound')
        .send({ to: number.number, from: customer, body: 'Hello?' })
        .expect(201);
      expect(second.body.data.reply).toBeNull();
      expect(second.body.data.conversation.uuid).toBe(first.body.data.conversation.uuid);
      expect(llm.callsOf('reply')).toHaveLength(replies);
      const row = await db.query(
        `SELECT handled_by FROM messaging_threads WHERE workspace_id = $1 AND id = $2`,
        [t.workspaceId, first.body.data.conversation.uuid],
      );
      expect(row[0].handled_by).toBe('Human');
    } finally {
      llm.respond = defaultAnswer;
    }
  });

  it('a guard forward over the signed hook: the say leaves through Twilio, the API answers handled_by Human, the agent stays silent', async () => {
    const agent = (await createAgent(t)).agent_uuid as string;
    await t.http
      .post(`/api/v1/agents/${agent}/guard-rules`)
      .send({
        name: 'Human',
        when_condition: 'The customer asks for a human',
        example_phrases: ['I want a human'],
        then_action: 'forward',
        say_before_forwarding: 'A colleague will take over.',
        destination_type: 'phone_number',
        destination: '+14155550100',
      })
      .expect(201);
    const number = await register(t, 'twilio', ['sms'], agent);
    const customer = sandboxDestination('1122');
    llm.respond = (call) =>
      call.kind === 'classify'
        ? {
            content: JSON.stringify({
              scores: JSON.parse(call.messages[1].content).utterance.includes('human')
                ? [{ id: JSON.parse(call.messages[1].content).candidates[0].id, score: 0.95 }]
                : [],
            }),
          }
        : defaultAnswer(call);
    const read = async (uuid: string) =>
      (await t.http.get(`/api/v1/conversations/${uuid}`).expect(200)).body.data;
    try {
      await inbound(customer, number.number, 'Hello').expect(200);
      await waitFor(async () => sentTo(customer)[0]);
      const conversation = await conversationOf(customer);
      expect((await read(conversation.uuid)).handled_by).toBe('AI');
      await inbound(customer, number.number, 'I want a human').expect(200);
      const say = await waitFor(async () => sentTo(customer)[1]);
      expect(say.params).toMatchObject({ From: number.number, Body: 'A colleague will take over.' });
      // The hand-off is stored before the say leaves: both reads answer it at once.
      expect(await read(conversation.uuid)).toMatchObject({ handled_by: 'Human', status: 'active' });
      const listed = await t.http
        .get(`/api/v1/conversations?channel=sms&phone=${encodeURIComponent(customer)}`)
        .expect(200);
      expect(listed.body.data.items).toEqual([expect.objectContaining({ handled_by: 'Human' })]);
      const replies = llm.callsOf('reply').length;
      await inbound(customer, number.number, 'Hello? Anyone?').expect(200);
      await waitFor(async () => ((await messagesOf(conversation.uuid)).length === 5 ? true : undefined));
      await new Promise((r) => setTimeout(r, 300));
      expect(sentTo(customer)).toHaveLength(2);
      expect(llm.callsOf('reply')).toHaveLength(replies);
      expect((await messagesOf(conversation.uuid)).map((m) => [m.sender, m.content])).toEqual([
        ['customer', 'Hello'],
        ['agent', 'Hello from the model.'],
        ['customer', 'I want a human'],
        ['agent', 'A colleague will take over.'],
        ['customer', 'Hello? Anyone?'],
      ]);
    } finally {
      llm.respond = defaultAnswer;
    }
  });

  it('refuses a send without an sms number (422) and a missing field (422)', async () => {
    const lonely = (await createAgent(t)).agent_uuid;
    const res = await t.http
      .post('/api/v1/sms/send')
      .send({ agent_uuid: lonely, to: sandboxDestination(), body: 'x' });
    expect(res.status).toBe(422);
    expect(res.body.error.field).toBe('phone_number_uuid');
    const missing = await t.http
      .post('/api/v1/sms/send')
      .send({ agent_uuid: agentId, to: sandboxDestination() });
    expect(missing.status).toBe(422);
    expect(missing.body.error.field).toBe('body');
    // Another workspace's agent is unknown here.
    const foreign = await other.http
      .post('/api/v1/sms/send')
      .send({ agent_uuid: agentId, to: sandboxDestination(), body: 'x' });
    expect(foreign.status).toBe(422);
    expect(foreign.body.error.field).toBe('agent_uuid');
  });
});
