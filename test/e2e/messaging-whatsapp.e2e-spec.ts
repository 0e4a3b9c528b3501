import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { DataSource } from 'typeorm';
import { QUEUES } from '@/common/queue/queues';
import { createAgent } from '../factories/agent.factory';
import { sandboxDestination } from '../factories/call.factory';
import { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { TestApp } from '../setup/test-app';
import { defaultAnswer, LlmServer } from '../support/llm-server';
import { metaSignature, MetaServer } from '../support/meta-server';
import { defaultSttAnswer, SttServer } from '../support/stt-server';
import { waitFor } from '../support/wait';

const APP_SECRET = 'meta-app-secret-for-tests';
const VERIFY = 'verify-token-for-tests';
let seq = 0;
const uniq = () => `${process.pid}${Date.now() % 100000}${++seq}`;
const newNumber = () => {
  seq += 1;
  return `+1628${300 + ((process.pid * 19 + seq) % 600)}${String((seq * 53) % 10000).padStart(4, '0')}`;
};

describe('messaging: WhatsApp Cloud API, templates, the 24-hour window, Messenger', () => {
  const suite = useTestApp({
    servers: { llm: () => LlmServer.start(), meta: () => MetaServer.start(), stt: () => SttServer.start() },
    env: ({ llm, meta, stt }) => ({
      STT_BASE_URL: stt.url,
      STT_API_KEY: 'stt-key',
      LLM_BASE_URL: llm.url,
      LLM_MODEL: 'test-model',
      SANDBOX_ANSWER_DELAY_MS: '100',
      PUBLIC_BASE_URL: 'https://hooks.example.test',
      META_GRAPH_URL: meta.url,
      META_ACCESS_TOKEN: 'meta-access-token',
      META_APP_SECRET: APP_SECRET,
      META_VERIFY_TOKEN: VERIFY,
    }),
    tenants: ['t', 'other'],
  });
  let llm: LlmServer;
  let meta: MetaServer;
  let stt: SttServer;
  let app: TestApp;
  let t: TestTenant;
  let other: TestTenant;
  let db: DataSource;
  let agentId: string;
  const wa = { id: '', number: '', metaId: `PN${uniq()}`, waba: `WABA${uniq()}` };

  const hooks = () => app.http('hooks.localhost');
  const notify = (payload: unknown, secret = APP_SECRET, path = '/hooks/v1/meta/whatsapp') => {
    const raw = JSON.stringify(payload);
    return hooks()
      .post(path)
      .set('Content-Type', 'application/json')
      .set('X-Hub-Signature-256', metaSignature(secret, raw))
      .send(raw);
  };
  const change = (field: string, value: unknown) => ({
    object: 'whatsapp_business_account',
    entry: [{ id: wa.waba, changes: [{ field, value }] }],
  });
  const inbound = (from: string, message: Record<string, unknown>) =>
    notify(
      change('messages', {
        messaging_product: 'whatsapp',
        metadata: { display_phone_number: wa.number.slice(1), phone_number_id: wa.metaId },
        contacts: [{ profile: { name: 'Ada' }, wa_id: from.slice(1) }],
        messages: [{ from: from.slice(1), id: `wamid.${uniq()}`, timestamp: '1763900000', ...message }],
      }),
    );
  const statusUpdate = (id: string, status: string, errors?: unknown[]) =>
    notify(
      change('messages', {
        messaging_product: 'whatsapp',
        metadata: { phone_number_id: wa.metaId },
        statuses: [{ id, status, timestamp: '1763900001', recipient_id: '1', ...(errors ? { errors } : {}) }],
      }),
    );
  const sentTo = (to: string) => meta.sent(`/${wa.metaId}/messages`).filter((r) => r.body.to === to.slice(1));
  const conversationOf = (phone: string, channel = 'whatsapp') =>
    waitFor(async () => {
      const res = await t.http
        .get(`/api/v1/conversations?channel=${channel}&phone=${encodeURIComponent(phone)}`)
        .expect(200);
      return res.body.data.items[0] as { uuid: string; agent_uuid: string | null } | undefined;
    });
  const messagesOf = async (conversation: string) =>
    (await t.http.get(`/api/v1/conversations/${conversation}/messages?per_page=100`).expect(200)).body.data
      .items as {
      uuid: string;
      sender: string;
      content: string;
      message_type: string;
    }[];
  const statusOf = (id: string, want: string) =>
    waitFor(async () => {
      const r = await t.http.get(`/api/v1/messages/${id}`).expect(200);
      return r.body.data.delivery_status === want ? r.body.data : undefined;
    });

  beforeAll(async () => {
    ({ llm, meta, stt, app, t, other } = suite);
    db = app.get<DataSource>(DataSource);
    agentId = (await createAgent(t)).agent_uuid;
    wa.number = newNumber();
    const res = await t.http
      .post('/api/v1/phone-numbers')
      .send({
        number: wa.number,
        provider: 'meta',
        whatsapp: { phone_number_id: wa.metaId, waba_id: wa.waba },
      })
      .expect(201);
    wa.id = res.body.data.uuid;
    expect(res.body.data.capabilities.whatsapp).toBe(true);
    await t.http
      .post(`/api/v1/agents/${agentId}/phone-numbers`)
      .send({ phone_number_uuid: wa.id, channels: ['whatsapp'] })
      .expect(201);
  });

  it('answers the verify handshake with the challenge, 403 otherwise', async () => {
    const ok = await hooks()
      .get(`/hooks/v1/meta/whatsapp?hub.mode=subscribe&hub.verify_token=${VERIFY}&hub.challenge=1158201444`)
      .expect(200);
    expect(ok.headers['content-type']).toMatch(/text\/plain/);
    expect(ok.text).toBe('1158201444');
    await hooks()
      .get(`/hooks/v1/meta/whatsapp?hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1`)
      .expect(403);
  });

  it('the same Meta sender cannot be registered by another workspace', async () => {
    const res = await other.http
      .post('/api/v1/phone-numbers')
      .send({ number: newNumber(), provider: 'meta', whatsapp: { phone_number_id: wa.metaId } });
    expect(res.status).toBe(409);
    // A twilio number in a deployment without Twilio is refused on provider.
    const twilio = await other.http
      .post('/api/v1/phone-numbers')
      .send({ number: newNumber(), provider: 'twilio' });
    expect(twilio.status).toBe(422);
    expect(twilio.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'provider' });
  });

  it("another workspace cannot put a number on this workspace's WABA (409 on whatsapp.waba_id, naming nobody), so its templates never reach it", async () => {
    const refused = { code: 'CONFLICT', field: 'whatsapp.waba_id' };
    const message = 'This WhatsApp Business Account is connected to another workspace';
    const number = newNumber();
    const created = await other.http.post('/api/v1/phone-numbers').send({
      number,
      provider: 'meta',
      whatsapp: { phone_number_id: `PN${uniq()}`, waba_id: wa.waba },
    });
    expect(created.status).toBe(409);
    expect(created.body).toMatchObject({ message, error: refused });
    for (const secret of [t.workspaceId, wa.number, wa.metaId])
      expect(JSON.stringify(created.body)).not.toContain(secret);
    // Nothing of the refused registration is kept.
    const list = (await other.http.get('/api/v1/phone-numbers?per_page=100').expect(200)).body.data.items;
    expect(list.map((n: { number: string }) => n.number)).not.toContain(number);
    // Nor can a number of its own be moved onto the WABA.
    const own = await other.http
      .post('/api/v1/phone-numbers')
      .send({ number: newNumber(), provider: 'meta', whatsapp: { phone_number_id: `PN${uniq()}` } })
      .expect(201);
    const patched = await other.http
      .patch(`/api/v1/phone-numbers/${own.body.data.uuid}`)
      .send({ whatsapp: { phone_number_id: `PN${uniq()}`, waba_id: wa.waba } });
    expect(patched.status).toBe(409);
    expect(patched.body).toMatchObject({ message, error: refused });
    // Its template sync finds no WABA, so nothing is asked of Meta about this workspace's one.
    const asked = () => meta.requests.filter((r) => r.path === `/${wa.waba}/message_templates`).length;
    const before = asked();
    await other.http.post('/api/v1/whatsapp/templates/sync').expect(200);
    expect(asked()).toBe(before);
    // The owner keeps using its WABA.
    await t.http
      .patch(`/api/v1/phone-numbers/${wa.id}`)
      .send({ whatsapp: { phone_number_id: wa.metaId, waba_id: wa.waba } })
      .expect(200);
  });

  it('inbound WhatsApp text reaches the bound agent; the reply leaves through the Cloud API from the same sender', async () => {
    const customer = sandboxDestination('2221');
    await inbound(customer, { type: 'text', text: { body: 'Do you ship abroad?' } }).expect(200);
    const sent = await waitFor(async () => sentTo(customer)[0]);
    expect(sent.authorization).toBe('Bearer meta-access-token');
    expect(sent.body).toMatchObject({
      messaging_product: 'whatsapp',
      to: customer.slice(1),
      type: 'text',
      text: { body: 'Hello from the model.' },
    });
    const conversation = await conversationOf(customer);
    expect(conversation.agent_uuid).toBe(agentId);
    const messages = await messagesOf(conversation.uuid);
    expect(messages.map((m) => [m.sender, m.content])).toEqual([
      ['customer', 'Do you ship abroad?'],
      ['agent', 'Hello from the model.'],
    ]);
    const reply = await waitFor(async () => {
      const r = await t.http.get(`/api/v1/messages/${messages[1].uuid}`).expect(200);
      return r.body.data.provider_message_id ? r.body.data : undefined;
    });
    expect(reply).toMatchObject({
      channel: 'whatsapp',
      provider: 'meta',
      from: wa.number,
      to: customer,
      delivery_status: 'queued',
    });
    // Statuses move forward only: a late `delivered` after `read` is ignored.
    await statusUpdate(reply.provider_message_id, 'sent').expect(200);
    await statusOf(reply.uuid, 'sent');
    await statusUpdate(reply.provider_message_id, 'read').expect(200);
    await statusOf(reply.uuid, 'read');
    await statusUpdate(reply.provider_message_id, 'delivered').expect(200);
    const events = await waitFor(async () => {
      const rows = await db.query(
        `SELECT data->'message'->>'delivery_status' AS status FROM outbox_events
          WHERE workspace_id = $1 AND type = 'message_status' AND data->'message'->>'uuid' = $2 ORDER BY created_at, id`,
        [t.workspaceId, reply.uuid],
      );
      return rows.length === 2 ? rows : undefined;
    });
    expect(events.map((e: { status: string }) => e.status)).toEqual(['sent', 'read']);
  });

  it('buttons and list replies arrive as text, media as its type with the caption; unheard audio stays [audio] unanswered', async () => {
    const customer = sandboxDestination('2222');
    await inbound(customer, {
      type: 'interactive',
      interactive: { type: 'button_reply', button_reply: { id: 'b1', title: 'Yes please' } },
    }).expect(200);
    await inbound(customer, {
      type: 'image',
      image: { id: 'media1', caption: 'My receipt', mime_type: 'image/jpeg' },
    }).expect(200);
    // Meta no longer serves this media: the voice note cannot be heard, so it is kept as [audio] and not answered.
    await inbound(customer, { type: 'audio', audio: { id: 'media2', mime_type: 'audio/ogg' } }).expect(200);
    await inbound(customer, { type: 'text', text: { body: 'Still there?' } }).expect(200);
    await waitFor(async () => (sentTo(customer).length === 3 ? true : undefined));
    const conversation = await conversationOf(customer);
    const turns = await messagesOf(conversation.uuid);
    expect(turns.map((m) => [m.sender, m.message_type, m.content])).toEqual([
      ['customer', 'text', 'Yes please'],
      ['agent', 'text', 'Hello from the model.'],
      ['customer', 'image', 'My receipt'],
      ['agent', 'text', 'Hello from the model.'],
      ['customer', 'audio', '[audio]'],
      ['customer', 'text', 'Still there?'],
      ['agent', 'text', 'Hello from the model.'],
    ]);
    expect(stt.calls).toHaveLength(0);
  });

  it('a voice note is transcribed: its media fetched from the Graph API, the transcript answered by the agent', async () => {
    const customer = sandboxDestination('2230');
    const bytes = Buffer.from(`OggS${'\u0000'.repeat(8)}opus voice note ${uniq()}`, 'latin1');
    const mediaId = `media${uniq()}`;
    meta.media.set(mediaId, { mimeType: 'audio/ogg; codecs=opus', bytes });
    stt.reset();
    stt.respond = () => ({ body: { text: ' Can I change my delivery address? ' } });
    llm.reset();
    try {
      await inbound(customer, {
        type: 'audio',
        audio: { id: mediaId, mime_type: 'audio/ogg; codecs=opus' },
      }).expect(200);
      const reply = await waitFor(async () => sentTo(customer)[0]);
      expect(reply.body).toMatchObject({ type: 'text', text: { body: 'Hello from the model.' } });
    } finally {
      stt.respond = defaultSttAnswer;
    }
    // The media was looked up, then downloaded with the Cloud API token.
    const lookups = meta.requests.filter((r) => r.method === 'GET' && r.path === `/${mediaId}`);
    expect(lookups).toHaveLength(1);
    expect(lookups[0].authorization).toBe('Bearer meta-access-token');
    const download = meta.requests.find(
      (r) => r.path.startsWith('/media-download') && r.query.get('mid') === mediaId,
    );
    expect(download?.authorization).toBe('Bearer meta-access-token');
    // The speech service got the file as it came, named for its container.
    expect(stt.calls).toHaveLength(1);
    expect(stt.calls[0].file.equals(bytes)).toBe(true);
    expect(stt.calls[0].fileName).toBe('voice-note.ogg');
    expect(stt.calls[0].authorization).toBe('Bearer stt-key');
    // The transcript is the customer's message, and the model answered it.
    const conversation = await conversationOf(customer);
    const turns = await messagesOf(conversation.uuid);
    expect(turns.map((m) => [m.sender, m.message_type, m.content])).toEqual([
      ['customer', 'audio', 'Can I change my delivery address?'],
      ['agent', 'text', 'Hello from the model.'],
    ]);
    const asked = llm.callsOf('reply').at(-1)!;
    expect(asked.messages.at(-1)).toMatchObject({
      role: 'user',
      content: 'Can I change my delivery address?',
    });
  });

  it('a voice note the speech service cannot transcribe is kept as [audio] and not answered', async () => {
    const customer = sandboxDestination('2231');
    const mediaId = `media${uniq()}`;
    meta.media.set(mediaId, { mimeType: 'audio/ogg', bytes: Buffer.from('OggS broken') });
    stt.respond = () => ({ status: 500 });
    try {
      await inbound(customer, { type: 'audio', audio: { id: mediaId, mime_type: 'audio/ogg' } }).expect(200);
      const conversation = await conversationOf(customer);
      const turns = await waitFor(async () => {
        const list = await messagesOf(conversation.uuid);
        return list.length ? list : undefined;
      });
      expect(turns.map((m) => [m.sender, m.message_type, m.content])).toEqual([
        ['customer', 'audio', '[audio]'],
      ]);
      await new Promise((r) => setTimeout(r, 500));
      expect(sentTo(customer)).toHaveLength(0);
    } finally {
      stt.respond = defaultSttAnswer;
    }
  });

  it('SMS from a Twilio number while Twilio is not configured is refused 422 before anything is stored', async () => {
    // This deployment has no TWILIO_ACCOUNT_SID: a number registered as Twilio's (or left from an earlier
    // configuration) cannot send SMS, and the API says so instead of queueing a message that can only fail.
    const number = newNumber();
    const created = await t.http
      .post('/api/v1/phone-numbers')
      .send({ number, provider: 'sandbox', capabilities: { sms: true } })
      .expect(201);
    const smsAgent = (await createAgent(t)).agent_uuid as string;
    await t.http
      .post(`/api/v1/agents/${smsAgent}/phone-numbers`)
      .send({ phone_number_uuid: created.body.data.uuid, channels: ['sms'] })
      .expect(201);
    await db.query(`UPDATE phone_numbers SET provider = 'twilio' WHERE workspace_id = $1 AND id = $2`, [
      t.workspaceId,
      created.body.data.uuid,
    ]);
    const customer = sandboxDestination('2232');
    const refused = await t.http
      .post('/api/v1/sms/send')
      .send({ agent_uuid: smsAgent, to: customer, body: 'Your order shipped' });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'phone_number_uuid' });
    expect(refused.body.message).toContain('Twilio is not configured');
    const stored = await db.query(
      `SELECT count(*)::int AS n FROM provider_messages WHERE workspace_id = $1 AND to_address = $2`,
      [t.workspaceId, customer],
    );
    expect(stored[0].n).toBe(0);
    const conversations = await t.http
      .get(`/api/v1/conversations?channel=sms&phone=${encodeURIComponent(customer)}`)
      .expect(200);
    expect(conversations.body.data.items).toHaveLength(0);
  });

  it('a wrong X-Hub-Signature-256 is 401 and stores nothing', async () => {
    const customer = sandboxDestination('2223');
    const payload = change('messages', {
      metadata: { phone_number_id: wa.metaId },
      messages: [{ from: customer.slice(1), id: 'wamid.forged', type: 'text', text: { body: 'forged' } }],
    });
    const res = await notify(payload, 'another-secret');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_SIGNATURE');
    await hooks()
      .post('/hooks/v1/meta/whatsapp')
      .set('Content-Type', 'application/json')
      .send(payload)
      .expect(401);
    const rows = await db.query(
      `SELECT count(*)::int AS n FROM provider_messages WHERE provider_message_id = 'wamid.forged'`,
    );
    expect(rows[0].n).toBe(0);
    const convs = await t.http.get(`/api/v1/conversations?phone=${encodeURIComponent(customer)}`).expect(200);
    expect(convs.body.data.items).toHaveLength(0);
  });

  it('a correctly signed body that is not a JSON object is 400 BAD_REQUEST and stores nothing', async () => {
    const customer = sandboxDestination('2238');
    const full = JSON.stringify(
      change('messages', {
        metadata: { phone_number_id: wa.metaId },
        messages: [
          { from: customer.slice(1), id: 'wamid.unparseable', type: 'text', text: { body: 'cut short' } },
        ],
      }),
    );
    for (const [path, raw] of [
      ['/hooks/v1/meta/whatsapp', full.slice(0, -3)],
      ['/hooks/v1/meta/messenger', 'not json at all'],
      ['/hooks/v1/meta/whatsapp', '[]'],
    ]) {
      const res = await hooks()
        .post(path)
        .set('Content-Type', 'application/json')
        .set('X-Hub-Signature-256', metaSignature(APP_SECRET, raw))
        .send(raw);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('BAD_REQUEST');
      // Unsigned, the same body is refused on its signature first.
      await hooks().post(path).set('Content-Type', 'application/json').send(raw).expect(401);
    }
    await new Promise((r) => setTimeout(r, 300));
    const rows = await db.query(
      `SELECT count(*)::int AS n FROM provider_messages WHERE provider_message_id = 'wamid.unparseable'`,
    );
    expect(rows[0].n).toBe(0);
    const convs = await t.http.get(`/api/v1/conversations?phone=${encodeURIComponent(customer)}`).expect(200);
    expect(convs.body.data.items).toHaveLength(0);
  });

  it('text is sent inside the 24-hour window only; outside is 409 OUTSIDE_MESSAGING_WINDOW', async () => {
    const stranger = sandboxDestination('2224');
    const refused = await t.http
      .post('/api/v1/whatsapp/messages')
      .send({ agent_uuid: agentId, to: stranger, text: 'Hi' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('OUTSIDE_MESSAGING_WINDOW');
    expect(JSON.parse(refused.body.error.details)).toEqual({ last_inbound_at: null, closed_at: null });
    const customer = sandboxDestination('2225');
    const wrote = Date.now();
    await inbound(customer, { type: 'text', text: { body: 'hello' } }).expect(200);
    await waitFor(async () => sentTo(customer)[0]);
    const open = await t.http
      .get(`/api/v1/conversations/${(await conversationOf(customer))!.uuid}`)
      .expect(200);
    const closes = Date.parse(open.body.data.messaging_window_expires_at as string);
    expect(closes).toBeGreaterThanOrEqual(wrote + 86_400_000 - 1000);
    expect(closes).toBeLessThanOrEqual(Date.now() + 86_400_000);
    const ok = await t.http
      .post('/api/v1/whatsapp/messages')
      .send({ agent_uuid: agentId, to: customer, text: 'Following up' })
      .expect(201);
    expect(ok.body.data).toMatchObject({
      channel: 'whatsapp',
      content: 'Following up',
      delivery_status: 'queued',
    });
    await waitFor(async () => sentTo(customer).find((r) => r.body.text?.body === 'Following up'));
    // The window closed a day ago: 409 with when it closed.
    await db.query(
      `UPDATE provider_messages SET created_at = now() - interval '25 hours' WHERE workspace_id = $1 AND from_address = $2 AND direction = 'inbound'`,
      [t.workspaceId, customer],
    );
    const late = await t.http
      .post('/api/v1/whatsapp/messages')
      .send({ agent_uuid: agentId, to: customer, text: 'Too late' });
    expect(late.status).toBe(409);
    const details = JSON.parse(late.body.error.details);
    expect(new Date(details.closed_at).getTime()).toBe(
      new Date(details.last_inbound_at).getTime() + 86_400_000,
    );
    // The conversation says when its window closes, alike in a read and in the list; a chat has no window.
    const conversation = await conversationOf(customer);
    const read = await t.http.get(`/api/v1/conversations/${conversation!.uuid}`).expect(200);
    expect(read.body.data.messaging_window_expires_at).toBe(details.closed_at);
    const listed = await t.http
      .get(`/api/v1/conversations?channel=whatsapp&phone=${encodeURIComponent(customer)}`)
      .expect(200);
    expect(listed.body.data.items[0].messaging_window_expires_at).toBe(details.closed_at);
    const chat = await t.http
      .post('/api/v1/conversations')
      .send({ agent_uuid: agentId, channel: 'chat' })
      .expect(201);
    const chatRead = await t.http.get(`/api/v1/conversations/${chat.body.data.uuid}`).expect(200);
    expect(chatRead.body.data).not.toHaveProperty('messaging_window_expires_at');
  });

  it('a status that arrives before the send stored its wamid applies once it is stored; a repeat is processed once', async () => {
    const customer = sandboxDestination('2234');
    await inbound(customer, { type: 'text', text: { body: 'hello' } }).expect(200);
    await waitFor(async () => sentTo(customer)[0]);
    const queue = app.get<Queue>(getQueueToken(QUEUES.messaging));
    meta.holdSends = true;
    try {
      const res = await t.http
        .post('/api/v1/whatsapp/messages')
        .send({ agent_uuid: agentId, to: customer, text: 'Your parcel is out for delivery' })
        .expect(201);
      // Meta took the send and reports it delivered before its answer (the wamid) reaches us.
      const held = await waitFor(async () =>
        sentTo(customer).find((r) => r.body.text?.body.includes('parcel')),
      );
      const wamid = held.wamid!;
      await statusUpdate(wamid, 'delivered').expect(200);
      // The status was looked at while no message had that wamid.
      await waitFor(async () => {
        const job = await queue.getJob(`meta-status:${wamid}:delivered`);
        return job && (job.attemptsMade > 0 || job.finishedOn) ? true : undefined;
      });
      expect(
        (await t.http.get(`/api/v1/messages/${res.body.data.uuid}`).expect(200)).body.data,
      ).toMatchObject({
        provider_message_id: null,
        delivery_status: 'queued',
      });
      meta.release();
      const delivered = await statusOf(res.body.data.uuid, 'delivered');
      expect(delivered.provider_message_id).toBe(wamid);
      // Meta delivers the same status again: processed once.
      await statusUpdate(wamid, 'delivered').expect(200);
      await new Promise((r) => setTimeout(r, 300));
      const events = await db.query(
        `SELECT data->>'previous_status' AS previous, data->'message'->>'delivery_status' AS status
           FROM outbox_events WHERE workspace_id = $1 AND type = 'message_status' AND data->'message'->>'uuid' = $2`,
        [t.workspaceId, res.body.data.uuid],
      );
      expect(events).toEqual([{ previous: 'queued', status: 'delivered' }]);
    } finally {
      meta.release();
    }
  });

  it('a repeated delivery of the same wamid is processed once: one message, one reply', async () => {
    const customer = sandboxDestination('2235');
    const id = `wamid.repeat${uniq()}`;
    await inbound(customer, { id, type: 'text', text: { body: 'Hi there' } }).expect(200);
    await inbound(customer, { id, type: 'text', text: { body: 'Hi there' } }).expect(200);
    await waitFor(async () => sentTo(customer)[0]);
    // The copies are handled in order on the thread: once a later message is answered, they are settled.
    await inbound(customer, { type: 'text', text: { body: 'Second' } }).expect(200);
    await waitFor(async () => (sentTo(customer).length >= 2 ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    expect(sentTo(customer)).toHaveLength(2);
    const conversation = await conversationOf(customer);
    expect((await messagesOf(conversation.uuid)).map((m) => [m.sender, m.content])).toEqual([
      ['customer', 'Hi there'],
      ['agent', 'Hello from the model.'],
      ['customer', 'Second'],
      ['agent', 'Hello from the model.'],
    ]);
    const stored = await db.query(
      `SELECT count(*)::int AS n FROM provider_messages WHERE provider = 'meta' AND provider_message_id = $1`,
      [id],
    );
    expect(stored[0].n).toBe(1);
  });

  it('STOP over WhatsApp blacklists the sender without a reply, so the next send is 409; START lifts it', async () => {
    const customer = sandboxDestination('2236');
    const optOut = async () => {
      const r = await t.http.get('/api/v1/blacklist?source=opt_out').expect(200);
      return (r.body.data.items as { phone_number: string }[]).find((e) => e.phone_number === customer);
    };
    await inbound(customer, { type: 'text', text: { body: 'hello' } }).expect(200);
    await waitFor(async () => sentTo(customer)[0]);
    await inbound(customer, { type: 'text', text: { body: '  Stop ' } }).expect(200);
    const entry = await waitFor(optOut);
    expect(entry).toMatchObject({ type: 'Phone', source: 'opt_out', is_permanent: true, expires_at: null });
    const refused = await t.http
      .post('/api/v1/whatsapp/messages')
      .send({ agent_uuid: agentId, to: customer, text: 'An offer' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('BLACKLISTED');
    await inbound(customer, { type: 'text', text: { body: 'START' } }).expect(200);
    await waitFor(async () => ((await optOut()) ? undefined : true));
    expect(sentTo(customer)).toHaveLength(1); // neither STOP nor START got a model reply
    await t.http
      .post('/api/v1/whatsapp/messages')
      .send({ agent_uuid: agentId, to: customer, text: 'Welcome back' })
      .expect(201);
    await waitFor(async () => sentTo(customer).find((r) => r.body.text?.body === 'Welcome back'));
    const conversation = await conversationOf(customer);
    expect((await messagesOf(conversation.uuid)).map((m) => [m.sender, m.content])).toEqual([
      ['customer', 'hello'],
      ['agent', 'Hello from the model.'],
      ['customer', '  Stop '],
      ['customer', 'START'],
      ['agent', 'Welcome back'],
    ]);
  });

  it('a number with no whatsapp binding keeps the message in an agentless conversation and replies nothing', async () => {
    const line = { number: newNumber(), metaId: `PN${uniq()}` };
    await t.http
      .post('/api/v1/phone-numbers')
      .send({ number: line.number, provider: 'meta', whatsapp: { phone_number_id: line.metaId } })
      .expect(201);
    const customer = sandboxDestination('2237');
    const write = (body: string) =>
      notify(
        change('messages', {
          messaging_product: 'whatsapp',
          metadata: { display_phone_number: line.number.slice(1), phone_number_id: line.metaId },
          messages: [
            {
              from: customer.slice(1),
              id: `wamid.${uniq()}`,
              timestamp: '1763900000',
              type: 'text',
              text: { body },
            },
          ],
        }),
      ).expect(200);
    await write('Anyone there?');
    const conversation = await conversationOf(customer);
    expect(conversation.agent_uuid).toBeNull();
    const messages = await waitFor(async () => {
      const list = await messagesOf(conversation.uuid);
      return list.length ? list : undefined;
    });
    expect(messages.map((m) => [m.sender, m.content])).toEqual([['customer', 'Anyone there?']]);
    const received = await t.http.get(`/api/v1/messages/${messages[0].uuid}`).expect(200);
    expect(received.body.data).toMatchObject({
      channel: 'whatsapp',
      direction: 'inbound',
      delivery_status: 'received',
      from: customer,
      to: line.number,
    });
    // STOP to that number opts the sender out all the same (the number is the workspace's), and START lifts it.
    const optedOut = async () => {
      const r = await t.http.get('/api/v1/blacklist?source=opt_out').expect(200);
      return (r.body.data.items as { phone_number: string }[]).some((e) => e.phone_number === customer);
    };
    await write('STOP');
    await waitFor(async () => ((await optedOut()) ? true : undefined));
    await write('start');
    await waitFor(async () => ((await optedOut()) ? undefined : true));
    await new Promise((r) => setTimeout(r, 300));
    expect(meta.sent(`/${line.metaId}/messages`)).toHaveLength(0);
    expect(sentTo(customer)).toHaveLength(0);
  });

  it('a Meta refusal (131047) ends the message failed with that code', async () => {
    const customer = sandboxDestination('2226');
    await inbound(customer, { type: 'text', text: { body: 'hello' } }).expect(200);
    await waitFor(async () => sentTo(customer)[0]);
    meta.refuse.set(customer.slice(1), 131047);
    const res = await t.http
      .post('/api/v1/whatsapp/messages')
      .send({ agent_uuid: agentId, to: customer, text: 'x' })
      .expect(201);
    const failed = await statusOf(res.body.data.uuid, 'failed');
    expect(failed.error.code).toBe('131047');
  });

  it('templates: created at Meta, not sendable until APPROVED, approved by the status webhook, then sent', async () => {
    const name = `order_update_${uniq()}`;
    const created = await t.http
      .post('/api/v1/whatsapp/templates')
      .send({
        name,
        language: 'en_US',
        category: 'UTILITY',
        components: [{ type: 'BODY', text: 'Hi {{1}}, order {{2}} ships today.' }],
      })
      .expect(201);
    expect(created.body.message).toBe('Template created successfully');
    expect(created.body.data).toMatchObject({
      name,
      status: 'PENDING',
      parameter_count: 2,
      waba_id: wa.waba,
      phone_number: wa.number,
    });
    const atMeta = meta.sent(`/${wa.waba}/message_templates`).find((r) => r.body.name === name);
    expect(atMeta?.body).toMatchObject({ language: 'en_US', category: 'UTILITY' });
    const templateUuid = created.body.data.uuid;
    const customer = sandboxDestination('2227');
    const pending = await t.http.post('/api/v1/whatsapp/template').send({
      agent_uuid: agentId,
      template_uuid: templateUuid,
      to: customer,
      parameters: { '1': 'Ada', '2': 'A-1' },
    });
    expect(pending.status).toBe(409);
    expect(pending.body.error.code).toBe('TEMPLATE_NOT_APPROVED');
    const statusUpdate = (event: string) =>
      notify(
        change('message_template_status_update', {
          event,
          message_template_id: Number(created.body.data.template_id),
          message_template_name: name,
          message_template_language: 'en_US',
          reason: 'NONE',
        }),
      ).expect(200);
    await statusUpdate('APPROVED');
    await waitFor(async () => {
      const r = await t.http.get(`/api/v1/whatsapp/templates/${templateUuid}`).expect(200);
      return r.body.data.status === 'APPROVED' ? true : undefined;
    });
    const mismatch = await t.http
      .post('/api/v1/whatsapp/template')
      .send({ agent_uuid: agentId, template_uuid: templateUuid, to: customer, parameters: { '1': 'Ada' } });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.error.field).toBe('parameters');
    // Outside the window (the customer never wrote): a template still goes.
    const sent = await t.http
      .post('/api/v1/whatsapp/template')
      .send({
        agentId,
        templateId: templateUuid,
        phoneNumber: customer,
        parameters: { '1': 'Ada', '2': 'A-1' },
      })
      .expect(201);
    expect(sent.body.message).toBe('WhatsApp template message sent successfully');
    expect(sent.body.data).toMatchObject({
      content: 'Hi Ada, order A-1 ships today.',
      message_type: 'template',
      template: { uuid: templateUuid, name, language: 'en_US', parameters: { '1': 'Ada', '2': 'A-1' } },
    });
    const request = await waitFor(async () => sentTo(customer)[0]);
    expect(request.body).toMatchObject({
      type: 'template',
      template: {
        name,
        language: { code: 'en_US' },
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Ada' },
              { type: 'text', text: 'A-1' },
            ],
          },
        ],
      },
    });
    const events = await db.query(
      `SELECT data->>'previous_status' AS previous, data->'template'->>'status' AS status,
              data->'template'->>'phone_number' AS phone_number, data->'template'->>'waba_id' AS waba_id
         FROM outbox_events
        WHERE workspace_id = $1 AND type = 'whatsapp_template_status' AND data->'template'->>'uuid' = $2`,
      [t.workspaceId, templateUuid],
    );
    // The event's template is the one GET answers: with its WABA number.
    expect(events).toEqual([
      { previous: 'PENDING', status: 'APPROVED', phone_number: wa.number, waba_id: wa.waba },
    ]);
    // Meta's values beyond ours are mapped: PENDING_DELETION (longer than any of ours) is DELETED.
    await statusUpdate('PENDING_DELETION');
    await waitFor(async () => {
      const r = await t.http.get(`/api/v1/whatsapp/templates/${templateUuid}`).expect(200);
      return r.body.data.status === 'DELETED' ? true : undefined;
    });
    // Another workspace sees nothing of it.
    await other.http.get(`/api/v1/whatsapp/templates/${templateUuid}`).expect(404);
    await other.http.delete(`/api/v1/whatsapp/templates/${templateUuid}`).expect(404);
  });

  it('template settings fill {{contact.*}} tokens; a missing placeholder is 422 on params.body.<n>', async () => {
    const name = `welcome_${uniq()}`;
    const created = await t.http
      .post('/api/v1/whatsapp/templates')
      .send({
        name,
        language: 'en_US',
        category: 'MARKETING',
        components: [{ type: 'BODY', text: 'Welcome {{1}} ({{2}})' }],
      })
      .expect(201);
    const templateUuid = created.body.data.uuid;
    const missing = await t.http
      .post('/api/v1/whatsapp/template-settings')
      .send({ template_uuid: templateUuid, params: { body: { '1': '{{contact.name}}' } } });
    expect(missing.status).toBe(422);
    expect(missing.body.error.field).toBe('params.body.2');
    const setting = await t.http
      .post('/api/v1/whatsapp/template-settings')
      .send({ template_uuid: templateUuid, params: { body: { '1': '{{contact.name}}', '2': 'gold' } } })
      .expect(201);
    expect(setting.body.data).toMatchObject({
      status: 'active',
      content: 'Welcome Ada (gold)',
      template: { uuid: templateUuid, status: 'PENDING' },
    });
    await db.query(`UPDATE whatsapp_templates SET status = 'APPROVED' WHERE workspace_id = $1 AND id = $2`, [
      t.workspaceId,
      templateUuid,
    ]);
    const customer = sandboxDestination('2228');
    await t.http.post('/api/v1/contacts').send({ name: 'Grace', phone_number: customer }).expect(201);
    const sent = await t.http
      .post('/api/v1/whatsapp/template')
      .send({ agent_uuid: agentId, template_setting_uuid: setting.body.data.uuid, to: customer })
      .expect(201);
    expect(sent.body.data.content).toBe('Welcome Grace (gold)');
    // Deleting the template deletes it at Meta and deactivates its settings.
    await t.http.delete(`/api/v1/whatsapp/templates/${templateUuid}`).expect(200);
    expect(meta.requests.some((r) => r.method === 'DELETE' && r.query.get('name') === name)).toBe(true);
    const after = await t.http
      .get(`/api/v1/whatsapp/template-settings/${setting.body.data.uuid}`)
      .expect(200);
    expect(after.body.data).toMatchObject({ status: 'inactive', template: null });
  });

  it('a Meta refusal of a new template is 502 PROVIDER_ERROR with its message', async () => {
    const res = await t.http.post('/api/v1/whatsapp/templates').send({
      name: `bad_${uniq()}`,
      language: 'en_US',
      category: 'UTILITY',
      components: [{ type: 'BODY', text: 'x' }],
    });
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('PROVIDER_ERROR');
    expect(res.body.message).toContain('Invalid parameter');
  });

  it('sync pulls every page of the WABA: created, updated, and vanished ones DELETED', async () => {
    const existing = meta.templates.map((x) => x.name);
    meta.templates.push(
      {
        id: 'T1',
        name: `synced_a_${uniq()}`,
        language: 'en_US',
        category: 'UTILITY',
        status: 'APPROVED',
        components: [{ type: 'BODY', text: 'A {{1}}' }],
      },
      {
        id: 'T2',
        name: `synced_b_${uniq()}`,
        language: 'es_ES',
        category: 'MARKETING',
        status: 'REJECTED',
        components: [{ type: 'BODY', text: 'B' }],
      },
    );
    const first = await t.http.post('/api/v1/whatsapp/templates/sync').expect(200);
    expect(first.body.data.created).toBe(2);
    // Existing local templates still at Meta were updated or unchanged; pages were followed (2 per page).
    expect(
      meta.requests.filter((r) => r.method === 'GET' && r.path === `/${wa.waba}/message_templates`).length,
    ).toBeGreaterThan(1);
    meta.templates = meta.templates.filter((x) => x.id !== 'T2');
    meta.templates.find((x) => x.id === 'T1')!.status = 'PAUSED';
    const second = await t.http.post('/api/v1/whatsapp/templates/sync').expect(200);
    expect(second.body.data).toEqual({ created: 0, updated: 1, deleted: 1 });
    const list = await t.http.get('/api/v1/whatsapp/templates?status=PAUSED').expect(200);
    expect(list.body.data.items.map((x: { template_id: string }) => x.template_id)).toEqual(['T1']);
    const paused = await db.query(
      `SELECT data->'template'->>'phone_number' AS phone_number FROM outbox_events
        WHERE workspace_id = $1 AND type = 'whatsapp_template_status' AND data->'template'->>'uuid' = $2
          AND data->'template'->>'status' = 'PAUSED'`,
      [t.workspaceId, list.body.data.items[0].uuid],
    );
    expect(paused).toEqual([{ phone_number: wa.number }]);
    // Meta's IN_APPEAL is ours PENDING; a value we do not know leaves the status as it was.
    meta.templates.find((x) => x.id === 'T1')!.status = 'IN_APPEAL';
    expect((await t.http.post('/api/v1/whatsapp/templates/sync').expect(200)).body.data.updated).toBe(1);
    const appealed = await t.http.get('/api/v1/whatsapp/templates?status=PENDING').expect(200);
    expect(appealed.body.data.items.map((x: { template_id: string }) => x.template_id)).toContain('T1');
    meta.templates.find((x) => x.id === 'T1')!.status = 'SOMETHING_NEW';
    expect((await t.http.post('/api/v1/whatsapp/templates/sync').expect(200)).body.data.updated).toBe(0);
    expect(existing.length).toBeGreaterThanOrEqual(0);
  });

  it('Messenger: an inbound page message reaches the page agent and the reply goes through the Send API', async () => {
    const pageId = `PAGE${uniq()}`;
    await t.http
      .post(`/api/v1/agents/${agentId}/channels/messenger/bind`)
      .send({ page_id: pageId, page_name: 'Acme' })
      .expect(200);
    const psid = `PSID${uniq()}`;
    await notify(
      {
        object: 'page',
        entry: [
          {
            id: pageId,
            time: 1763900000,
            messaging: [
              {
                sender: { id: psid },
                recipient: { id: pageId },
                timestamp: 1763900000,
                message: { mid: `m_${uniq()}`, text: 'Open on Sunday?' },
              },
            ],
          },
        ],
      },
      APP_SECRET,
      '/hooks/v1/meta/messenger',
    ).expect(200);
    const sent = await waitFor(async () => meta.sent(`/${pageId}/messages`)[0]);
    expect(sent.body).toMatchObject({
      recipient: { id: psid },
      messaging_type: 'RESPONSE',
      message: { text: 'Hello from the model.' },
    });
    const conversation = await conversationOf(psid, 'messenger');
    expect(conversation.agent_uuid).toBe(agentId);
  });

  it('a Messenger page connected in one workspace is refused to another (409 naming neither) and its messages stay with the first', async () => {
    const pageId = `PAGE${uniq()}`;
    await t.http
      .post(`/api/v1/agents/${agentId}/channels/messenger/bind`)
      .send({ page_id: pageId, page_name: 'Acme' })
      .expect(200);
    const intruder = (await createAgent(other, { name: 'Intruder' })).agent_uuid as string;
    const res = await other.http
      .post(`/api/v1/agents/${intruder}/channels/messenger/bind`)
      .send({ page_id: pageId, page_name: 'Mine now' });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      message: 'This page is connected to another workspace',
      error: { code: 'CONFLICT' },
    });
    for (const secret of [t.workspaceId, agentId, 'Acme'])
      expect(JSON.stringify(res.body)).not.toContain(secret);
    expect((await other.http.get(`/api/v1/agents/${intruder}`).expect(200)).body.data.channels).toEqual([]);
    const ownerView = (await t.http.get(`/api/v1/agents/${agentId}`).expect(200)).body.data;
    expect(ownerView.channels).toContainEqual(
      expect.objectContaining({ page_id: pageId, page_name: 'Acme' }),
    );
    // A copy another workspace took before the rule (bound later, so the most recently changed) takes no traffic:
    // inbound goes to the workspace that connected the page first.
    await db.query(
      `INSERT INTO messenger_pages (id, workspace_id, page_id, agent_id, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, $2, $3, now() + interval '1 second', now() + interval '1 hour')`,
      [other.workspaceId, pageId, intruder],
    );
    const psid = `PSID${uniq()}`;
    await notify(
      {
        object: 'page',
        entry: [
          {
            id: pageId,
            time: 1763900000,
            messaging: [
              {
                sender: { id: psid },
                recipient: { id: pageId },
                timestamp: 1763900000,
                message: { mid: `m_${uniq()}`, text: 'Whose page is this?' },
              },
            ],
          },
        ],
      },
      APP_SECRET,
      '/hooks/v1/meta/messenger',
    ).expect(200);
    const conversation = await conversationOf(psid, 'messenger');
    expect(conversation.agent_uuid).toBe(agentId);
    const theirs = await other.http.get(`/api/v1/conversations?channel=messenger&phone=${psid}`).expect(200);
    expect(theirs.body.data.items).toEqual([]);
  });

  it('a guard forward over WhatsApp hands the conversation to a human: handled_by Human, the agent stays silent', async () => {
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
    const line = { number: newNumber(), metaId: `PN${uniq()}` };
    const created = await t.http
      .post('/api/v1/phone-numbers')
      .send({ number: line.number, provider: 'meta', whatsapp: { phone_number_id: line.metaId } })
      .expect(201);
    await t.http
      .post(`/api/v1/agents/${agent}/phone-numbers`)
      .send({ phone_number_uuid: created.body.data.uuid, channels: ['whatsapp'] })
      .expect(201);
    const write = (from: string, body: string) =>
      notify(
        change('messages', {
          messaging_product: 'whatsapp',
          metadata: { display_phone_number: line.number.slice(1), phone_number_id: line.metaId },
          messages: [
            {
              from: from.slice(1),
              id: `wamid.${uniq()}`,
              timestamp: '1763900000',
              type: 'text',
              text: { body },
            },
          ],
        }),
      ).expect(200);
    const sentOnLine = (to: string) =>
      meta.sent(`/${line.metaId}/messages`).filter((r) => r.body.to === to.slice(1));
    const customer = sandboxDestination('2233');
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
      await write(customer, 'Hello');
      await waitFor(async () => sentOnLine(customer)[0]);
      const conversation = await conversationOf(customer);
      expect((await read(conversation.uuid)).handled_by).toBe('AI');
      await write(customer, 'I want a human');
      const say = await waitFor(async () => sentOnLine(customer)[1]);
      expect(say.body).toMatchObject({ type: 'text', text: { body: 'A colleague will take over.' } });
      expect(await read(conversation.uuid)).toMatchObject({ handled_by: 'Human', status: 'active' });
      const listed = await t.http
        .get(`/api/v1/conversations?channel=whatsapp&phone=${encodeURIComponent(customer)}`)
        .expect(200);
      expect(listed.body.data.items).toEqual([expect.objectContaining({ handled_by: 'Human' })]);
      const replies = llm.callsOf('reply').length;
      await write(customer, 'Hello? Anyone?');
      await waitFor(async () => ((await messagesOf(conversation.uuid)).length === 5 ? true : undefined));
      await new Promise((r) => setTimeout(r, 300));
      expect(sentOnLine(customer)).toHaveLength(2);
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

  it('sandbox WhatsApp: simulate-inbound answers the reply; statuses run to read', async () => {
    const number = newNumber();
    const created = await t.http
      .post('/api/v1/phone-numbers')
      .send({ number, provider: 'sandbox', capabilities: { whatsapp: true } })
      .expect(201);
    await t.http
      .post(`/api/v1/agents/${agentId}/phone-numbers`)
      .send({ phone_number_uuid: created.body.data.uuid, channels: ['whatsapp'] })
      .expect(201);
    const customer = sandboxDestination('2229');
    const sim = await t.http
      .post('/api/v1/whatsapp/simulate-inbound')
      .send({ to: number, from: customer, text: 'Hello?' })
      .expect(201);
    expect(sim.body.data.reply).toMatchObject({
      channel: 'whatsapp',
      provider: 'sandbox',
      from: number,
      to: customer,
    });
    await statusOf(sim.body.data.reply.uuid, 'read');
    // The conversation is answered as GET answers it: a WhatsApp one with its window.
    const conversation = sim.body.data.conversation;
    const read = await t.http.get(`/api/v1/conversations/${conversation.uuid}`).expect(200);
    expect(conversation.messaging_window_expires_at).toEqual(expect.any(String));
    // GET alone adds the conversation's usage.
    const { usage, ...view } = read.body.data;
    expect(usage).toMatchObject({ cost: null });
    expect(conversation).toEqual({ ...view, updated_at: conversation.updated_at });
  });

  it("a conversation's message list answers each message as GET /messages/{uuid} does, template included", async () => {
    const number = newNumber();
    const created = await t.http
      .post('/api/v1/phone-numbers')
      .send({
        number,
        provider: 'sandbox',
        whatsapp: { phone_number_id: `SBX${uniq()}`, waba_id: `SBXWABA${uniq()}` },
      })
      .expect(201);
    const agent = (await createAgent(t)).agent_uuid as string;
    await t.http
      .post(`/api/v1/agents/${agent}/phone-numbers`)
      .send({ phone_number_uuid: created.body.data.uuid, channels: ['whatsapp'] })
      .expect(201);
    const template = await t.http
      .post('/api/v1/whatsapp/templates')
      .send({
        name: `list_view_${uniq()}`,
        language: 'en_US',
        category: 'UTILITY',
        components: [{ type: 'BODY', text: 'Hello {{1}}' }],
        phone_number_uuid: created.body.data.uuid,
      })
      .expect(201);
    await waitFor(async () => {
      const r = await t.http.get(`/api/v1/whatsapp/templates/${template.body.data.uuid}`).expect(200);
      return r.body.data.status === 'APPROVED' ? true : undefined;
    });
    const customer = sandboxDestination('2231');
    const sent = await t.http
      .post('/api/v1/whatsapp/template')
      .send({
        agent_uuid: agent,
        template_uuid: template.body.data.uuid,
        to: customer,
        parameters: { '1': 'Ada' },
      })
      .expect(201);
    await statusOf(sent.body.data.uuid, 'read');
    const sim = await t.http
      .post('/api/v1/whatsapp/simulate-inbound')
      .send({ to: number, from: customer, text: 'Thanks' })
      .expect(201);
    await statusOf(sim.body.data.reply.uuid, 'read');
    const conversation = sim.body.data.conversation.uuid as string;
    expect(sent.body.data.conversation_uuid).toBe(conversation);
    const items = (await t.http.get(`/api/v1/conversations/${conversation}/messages`).expect(200)).body.data
      .items as { uuid: string }[];
    expect(items.map((m) => m.uuid)).toEqual([
      sent.body.data.uuid,
      sim.body.data.message.uuid,
      sim.body.data.reply.uuid,
    ]);
    for (const item of items)
      expect(item).toEqual((await t.http.get(`/api/v1/messages/${item.uuid}`).expect(200)).body.data);
    expect(items[0]).toMatchObject({
      from: number,
      to: customer,
      provider: 'sandbox',
      delivery_status: 'read',
      error: null,
      status_updated_at: expect.any(String),
      template: { uuid: template.body.data.uuid, language: 'en_US', parameters: { '1': 'Ada' } },
    });
    expect(items[1]).toMatchObject({ direction: 'inbound', delivery_status: 'received', from: customer });
  });
});
