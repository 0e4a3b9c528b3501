import { getExpectedTwilioSignature } from 'twilio/lib/webhooks/webhooks';
import { DataSource } from 'typeorm';
import { createAgent } from '../factories/agent.factory';
import { sandboxDestination, sandboxLine } from '../factories/call.factory';
import { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { TestApp } from '../setup/test-app';
import { LlmServer } from '../support/llm-server';
import { postSigned, TWILIO_SID, TWILIO_TOKEN, TwilioServer } from '../support/twilio-server';
import { waitFor } from '../support/wait';

const PUBLIC = 'https://wa-calls.example.test';

let seq = 0;
const uniqueNumber = () => {
  seq += 1;
  return `+1347${200 + ((process.pid * 17 + seq) % 800)}${String((Date.now() + seq) % 10000).padStart(4, '0')}`;
};

describe('WhatsApp calling (§15.9): channel whatsapp_call on the voice runtime', () => {
  const suite = useTestApp({
    servers: { twilio: () => TwilioServer.start(), llm: () => LlmServer.start() },
    env: ({ llm, twilio }) => ({
      LLM_BASE_URL: llm.url,
      LLM_MODEL: 'test-model',
      TWILIO_ACCOUNT_SID: TWILIO_SID,
      TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
      TWILIO_API_URL: twilio.url,
      PUBLIC_BASE_URL: PUBLIC,
      SANDBOX_ANSWER_DELAY_MS: '100',
    }),
    tenants: ['t', 'other'],
  });
  let twilio: TwilioServer;
  let app: TestApp;
  let db: DataSource;
  let t: TestTenant;
  let other: TestTenant;
  let line: { agentId: string; numberId: string; number: string };

  const callOf = async (id: string) => (await t.http.get(`/api/v1/calls/${id}`).expect(200)).body.data;
  const statusOf = (id: string, want: string) =>
    waitFor(
      async () => ((await callOf(id)).status === want ? callOf(id) : undefined),
      10_000,
      `call ${want}`,
    );
  /** A Twilio number with the WhatsApp calling capability; `call` and `whatsapp_call` served by two agents. */
  const twilioWhatsappLine = async () => {
    const phoneAgent = await createAgent(t, { name: 'Phone agent' });
    const waAgent = await createAgent(t, { name: 'WhatsApp agent' });
    const number = uniqueNumber();
    const created = await t.http
      .post('/api/v1/phone-numbers')
      .send({ number, provider: 'twilio', capabilities: { call: true, whatsapp_call: true } })
      .expect(201);
    const numberId = created.body.data.uuid as string;
    await t.http
      .post(`/api/v1/agents/${phoneAgent.agent_uuid}/phone-numbers`)
      .send({ phone_number_uuid: numberId, channels: ['call'] })
      .expect(201);
    await t.http
      .post(`/api/v1/agents/${waAgent.agent_uuid}/phone-numbers`)
      .send({ phone_number_uuid: numberId, channels: ['whatsapp_call'] })
      .expect(201);
    return { number, numberId, phoneAgent: phoneAgent.agent_uuid, waAgent: waAgent.agent_uuid };
  };

  beforeAll(async () => {
    ({ twilio, app, t, other } = suite);
    db = app.get<DataSource>(DataSource);
    line = await sandboxLine(t, { settings: { voice: { first_message: 'Hi from WhatsApp!' } } });
  });

  it('a sandbox inbound WhatsApp call runs turns and is evaluated with the voice block at its end', async () => {
    const res = await t.http
      .post('/api/v1/calls/simulate-inbound')
      .send({ to: line.number, from: '+14155550161', channel: 'whatsapp_call' })
      .expect(201);
    const call = res.body.data;
    expect(call).toMatchObject({
      communication: 'whatsapp_call',
      direction: 'Inbound',
      status: 'in-progress',
      provider: 'sandbox',
      is_simulation: true,
      agent: { uuid: line.agentId },
    });
    const conversation = (await t.http.get(`/api/v1/conversations/${call.uuid}`).expect(200)).body.data;
    expect(conversation.channel).toBe('whatsapp_call');
    const turn = await t.http
      .post(`/api/v1/calls/${call.uuid}/simulate`)
      .send({ action: 'say', text: 'Can I change my booking?' })
      .expect(200);
    expect(turn.body.data.reply).toMatchObject({ sender: 'agent' });
    // Live actions work as on phone calls.
    await t.http.post(`/api/v1/calls/action/${call.uuid}/say`).send({ message: 'One moment.' }).expect(200);
    const hang = await t.http
      .post(`/api/v1/calls/${call.uuid}/simulate`)
      .send({ action: 'hangup' })
      .expect(200);
    expect(hang.body.data.call).toMatchObject({ status: 'completed', end_reason: 'customer_hangup' });
    const types = await waitFor(
      async () => {
        const rows = (await db.query(
          `SELECT type FROM outbox_events WHERE workspace_id = $1 AND (data->>'conversation_uuid' = $2
              OR data->'conversation'->>'uuid' = $2 OR data->'session'->>'conversation_uuid' = $2
              OR data->>'session_uuid' IN (SELECT id::text FROM sessions WHERE conversation_id = $2::uuid))`,
          [t.workspaceId, call.uuid],
        )) as { type: string }[];
        const list = rows.map((r) => r.type);
        return list.includes('voice_evaluation') && list.includes('conversation_end_report')
          ? list
          : undefined;
      },
      20_000,
      'the voice evaluation',
    );
    expect(types.filter((x) => x === 'conversation_end_report')).toHaveLength(1);
    const [evaluation] = (await db.query(
      `SELECT data FROM outbox_events WHERE workspace_id = $1 AND type = 'voice_evaluation'
          AND data->>'session_uuid' IN (SELECT id::text FROM sessions WHERE conversation_id = $2::uuid)`,
      [t.workspaceId, call.uuid],
    )) as { data: Record<string, unknown> }[];
    // The voice block evaluated it (a text channel would have had a text_evaluation).
    expect(types).not.toContain('text_evaluation');
    expect((evaluation.data.records as unknown[]).length).toBeGreaterThan(0);
  }, 30_000);

  it('a number without a whatsapp_call binding refuses a simulated WhatsApp call (409), nothing stored', async () => {
    const agent = await createAgent(t);
    const number = uniqueNumber();
    const created = await t.http
      .post('/api/v1/phone-numbers')
      .send({ number, provider: 'sandbox', capabilities: { call: true } })
      .expect(201);
    await t.http
      .post(`/api/v1/agents/${agent.agent_uuid}/phone-numbers`)
      .send({ phone_number_uuid: created.body.data.uuid, channels: ['call'] })
      .expect(201);
    const res = await t.http
      .post('/api/v1/calls/simulate-inbound')
      .send({ to: number, from: '+14155550162', channel: 'whatsapp_call' });
    expect(res.status).toBe(409);
    const calls = await t.http.get(`/api/v1/calls?phone_number_uuid=${created.body.data.uuid}`).expect(200);
    expect(calls.body.data.items).toHaveLength(0);
  });

  it('outbound POST /call with channel whatsapp_call works on sandbox numbers', async () => {
    const res = await t.http
      .post('/api/v1/call')
      .send({ agent_uuid: line.agentId, to: sandboxDestination(), channel: 'whatsapp_call' })
      .expect(201);
    expect(res.body.data).toMatchObject({
      communication: 'whatsapp_call',
      direction: 'Outbound',
      status: 'queued',
    });
    const answered = await statusOf(res.body.data.uuid, 'in-progress');
    expect(answered.communication).toBe('whatsapp_call');
    const filtered = await t.http.get('/api/v1/calls?communication=whatsapp_call').expect(200);
    expect(filtered.body.data.items.map((c: { uuid: string }) => c.uuid)).toContain(res.body.data.uuid);
    await t.http.post(`/api/v1/calls/action/${res.body.data.uuid}/hangup`).send({}).expect(200);
  });

  it('outbound WhatsApp calls on real numbers are 409 CONFLICT (no prior call permission is requested)', async () => {
    const wa = await twilioWhatsappLine();
    const before = twilio.dials().length;
    const res = await t.http.post('/api/v1/call').send({
      agent_uuid: wa.phoneAgent,
      phone_number_uuid: wa.numberId,
      to: '+14155550163',
      channel: 'whatsapp_call',
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('CONFLICT');
    expect(res.body.message).toContain('permission');
    expect(twilio.dials().length).toBe(before);
  });

  it("an inbound WhatsApp call through the Twilio SIP domain goes to the number's whatsapp_call agent", async () => {
    const wa = await twilioWhatsappLine();
    const form = {
      CallSid: 'CA' + '7'.repeat(30) + String(seq).padStart(2, '0'),
      To: `sip:${wa.number}@wa-calls.sip.twilio.com`,
      From: 'sip:+14155550164@wa.meta.vc',
      CallStatus: 'ringing',
    };
    const hook = `${PUBLIC}/hooks/v1/twilio/voice/inbound?channel=whatsapp_call`;
    // The query is part of what Twilio signs: a signature over the URL without it is refused.
    await postSigned(app.url, hook, form, {
      signature: getExpectedTwilioSignature(TWILIO_TOKEN, `${PUBLIC}/hooks/v1/twilio/voice/inbound`, form),
    }).expect(401);
    const res = await postSigned(app.url, hook, form).expect(200);
    expect(res.text).toContain('<Connect><Stream');
    const calls = await t.http.get(`/api/v1/calls?phone_number_uuid=${wa.numberId}`).expect(200);
    expect(calls.body.data.items).toHaveLength(1);
    expect(calls.body.data.items[0]).toMatchObject({
      communication: 'whatsapp_call',
      direction: 'Inbound',
      status: 'ringing',
      from_number: '+14155550164',
      agent: { uuid: wa.waAgent },
    });
    // The same number on the plain voice hook is a phone call for the call agent.
    const phone = await postSigned(app.url, `${PUBLIC}/hooks/v1/twilio/voice/inbound`, {
      ...form,
      CallSid: 'CA' + '8'.repeat(32),
      To: wa.number,
      From: '+14155550165',
    }).expect(200);
    expect(phone.text).toContain('<Connect><Stream');
    const both = (await t.http.get(`/api/v1/calls?phone_number_uuid=${wa.numberId}`).expect(200)).body.data
      .items;
    expect(both.find((c: { communication: string }) => c.communication === 'phone').agent.uuid).toBe(
      wa.phoneAgent,
    );
  });

  it('a WhatsApp call to a number with no whatsapp_call binding is not in service, nothing stored', async () => {
    const agent = await createAgent(t);
    const number = uniqueNumber();
    const created = await t.http
      .post('/api/v1/phone-numbers')
      .send({ number, provider: 'twilio', capabilities: { call: true } })
      .expect(201);
    await t.http
      .post(`/api/v1/agents/${agent.agent_uuid}/phone-numbers`)
      .send({ phone_number_uuid: created.body.data.uuid, channels: ['call'] })
      .expect(201);
    const res = await postSigned(app.url, `${PUBLIC}/hooks/v1/twilio/voice/inbound?channel=whatsapp_call`, {
      CallSid: 'CA' + '9'.repeat(32),
      To: `sip:${number}@wa-calls.sip.twilio.com`,
      From: 'sip:+14155550166@wa.meta.vc',
    }).expect(200);
    expect(res.text).toContain('This number is not in service.');
    const calls = await t.http.get(`/api/v1/calls?phone_number_uuid=${created.body.data.uuid}`).expect(200);
    expect(calls.body.data.items).toHaveLength(0);
  });

  it("another workspace can't read, act on, list or simulate a workspace's WhatsApp calls", async () => {
    const call = (
      await t.http
        .post('/api/v1/calls/simulate-inbound')
        .send({ to: line.number, from: '+14155550167', channel: 'whatsapp_call' })
        .expect(201)
    ).body.data;
    await other.http.get(`/api/v1/calls/${call.uuid}`).expect(404);
    await other.http.get(`/api/v1/conversations/${call.uuid}`).expect(404);
    await other.http.post(`/api/v1/calls/action/${call.uuid}/hangup`).send({}).expect(404);
    await other.http.post(`/api/v1/calls/${call.uuid}/simulate`).send({ action: 'hangup' }).expect(404);
    const listed = await other.http.get('/api/v1/calls?communication=whatsapp_call').expect(200);
    expect(listed.body.data.items.map((c: { uuid: string }) => c.uuid)).not.toContain(call.uuid);
    const sim = await other.http
      .post('/api/v1/calls/simulate-inbound')
      .send({ to: line.number, from: '+14155550168', channel: 'whatsapp_call' });
    expect(sim.status).toBe(422);
    expect((await callOf(call.uuid)).status).toBe('in-progress');
    await t.http.post(`/api/v1/calls/${call.uuid}/simulate`).send({ action: 'hangup' }).expect(200);
  });
});
