import { DataSource } from 'typeorm';
import { createAgent } from '../factories/agent.factory';
import { sandboxDestination } from '../factories/call.factory';
import { createField } from '../factories/contact.factory';
import { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { TestApp } from '../setup/test-app';
import { LlmServer } from '../support/llm-server';
import { metaSignature, MetaServer } from '../support/meta-server';
import { twilioSignature, TwilioMessagingServer } from '../support/twilio-messaging-server';
import { waitFor } from '../support/wait';

const PUBLIC = 'https://hooks.example.test';
const APP_SECRET = 'meta-app-secret-for-channels';
const AUTH_TOKEN = 'twilio-auth-token-for-channels';
const REPLY = 'Hello from the model.';
const SUMMARY = 'The customer asked a question and got an answer.';
let seq = 0;
const uniq = () => `${process.pid}${Date.now() % 100000}${++seq}`;
const newNumber = () => {
  seq += 1;
  return `+1341${300 + ((process.pid * 29 + seq) % 600)}${String((seq * 61 + Date.now()) % 10000).padStart(4, '0')}`;
};

/**
 * Contract §12: Instagram inbound through the Meta webhook, SMS sessions ended and evaluated as text ones are, and
 * `{{custom.<key>}}` tokens of a WhatsApp template setting filled from the recipient contact's custom fields.
 */
describe('messaging: Instagram inbound, SMS sessions evaluated, custom-field tokens in templates', () => {
  const suite = useTestApp({
    servers: {
      llm: () => LlmServer.start(),
      meta: () => MetaServer.start(),
      twilio: () => TwilioMessagingServer.start(),
    },
    env: ({ llm, meta, twilio }) => ({
      LLM_BASE_URL: llm.url,
      LLM_MODEL: 'test-model',
      SANDBOX_ANSWER_DELAY_MS: '100',
      PUBLIC_BASE_URL: PUBLIC,
      META_GRAPH_URL: meta.url,
      META_ACCESS_TOKEN: 'meta-access-token',
      META_APP_SECRET: APP_SECRET,
      TWILIO_ACCOUNT_SID: 'ACchannels0123456789',
      TWILIO_AUTH_TOKEN: AUTH_TOKEN,
      TWILIO_API_URL: twilio.url,
    }),
    tenants: ['t'],
  });
  let llm: LlmServer;
  let meta: MetaServer;
  let twilio: TwilioMessagingServer;
  let app: TestApp;
  let t: TestTenant;
  let db: DataSource;

  const hooks = () => app.http('hooks.localhost');
  const signedMeta = (payload: unknown, path = '/hooks/v1/meta/messenger') => {
    const raw = JSON.stringify(payload);
    return hooks()
      .post(path)
      .set('Content-Type', 'application/json')
      .set('X-Hub-Signature-256', metaSignature(APP_SECRET, raw))
      .send(raw);
  };
  const conversationsOf = async (address: string, channel: string) =>
    (
      await t.http
        .get(`/api/v1/conversations?channel=${channel}&phone=${encodeURIComponent(address)}`)
        .expect(200)
    ).body.data.items as { uuid: string; agent_uuid: string | null; channel: string; status: string }[];
  const conversationOf = (address: string, channel: string) =>
    waitFor(async () => (await conversationsOf(address, channel))[0]);
  const messagesOf = async (conversation: string) =>
    (await t.http.get(`/api/v1/conversations/${conversation}/messages?per_page=100`).expect(200)).body.data
      .items as { uuid: string; sender: string; content: string; session_uuid: string | null }[];

  beforeAll(() => {
    ({ llm, meta, twilio, app, t } = suite);
    db = app.get<DataSource>(DataSource);
  });

  describe('Instagram', () => {
    const instagram = (pageId: string, igsid: string, mid: string, text: string) =>
      signedMeta({
        object: 'instagram',
        entry: [
          {
            id: pageId,
            time: 1763900000,
            messaging: [
              {
                sender: { id: igsid },
                recipient: { id: pageId },
                timestamp: 1763900000,
                message: { mid, text },
              },
            ],
          },
        ],
      });

    it('an inbound Instagram message reaches the page agent as an instagram conversation; the reply goes through the Send API; a repeated mid is processed once', async () => {
      const agentId = (await createAgent(t, { name: 'Insta agent' })).agent_uuid as string;
      const pageId = `IGPAGE${uniq()}`;
      await t.http
        .post(`/api/v1/agents/${agentId}/channels/messenger/bind`)
        .send({ page_id: pageId, page_name: 'Acme on Instagram' })
        .expect(200);
      const igsid = `IGSID${uniq()}`;
      const mid = `aWdfZAG1faXRlbToxOklHTWVzc2FnZA${uniq()}`;
      const sendsTo = () => meta.sent(`/${pageId}/messages`).filter((r) => r.body?.recipient?.id === igsid);

      const first = await instagram(pageId, igsid, mid, 'Do you have this in blue?').expect(200);
      expect(first.text).toBe('EVENT_RECEIVED');
      // Meta delivers again (same mid): the copy is handled after the first in the thread, and skipped.
      await instagram(pageId, igsid, mid, 'Do you have this in blue?').expect(200);

      const sent = await waitFor(async () => sendsTo()[0]);
      expect(sent.authorization).toBe('Bearer meta-access-token');
      expect(sent.body).toEqual({
        recipient: { id: igsid },
        messaging_type: 'RESPONSE',
        message: { text: REPLY },
      });

      const conversation = await conversationOf(igsid, 'instagram');
      expect(conversation).toMatchObject({ agent_uuid: agentId, channel: 'instagram', status: 'active' });
      // Not a Messenger conversation, though the page binding is the Messenger one.
      expect(await conversationsOf(igsid, 'messenger')).toEqual([]);
      const reply = llm
        .callsOf('reply')
        .find((c) => c.messages.at(-1)?.content === 'Do you have this in blue?');
      expect(reply).toBeDefined();

      // A later message (new mid) settles the thread: the copy before it was skipped.
      await instagram(pageId, igsid, `${mid}b`, 'And in red?').expect(200);
      await waitFor(async () => (sendsTo().length >= 2 ? true : undefined));
      await new Promise((r) => setTimeout(r, 300));
      expect(sendsTo()).toHaveLength(2);
      const messages = await messagesOf(conversation.uuid);
      expect(messages.map((m) => [m.sender, m.content])).toEqual([
        ['customer', 'Do you have this in blue?'],
        ['agent', REPLY],
        ['customer', 'And in red?'],
        ['agent', REPLY],
      ]);
      expect(
        llm.callsOf('reply').filter((c) => c.messages.at(-1)?.content === 'Do you have this in blue?'),
      ).toHaveLength(1);
      const stored = await db.query(
        `SELECT count(*)::int AS n FROM provider_messages WHERE provider = 'meta' AND provider_message_id = $1`,
        [mid],
      );
      expect(stored[0].n).toBe(1);

      const inbound = (await t.http.get(`/api/v1/messages/${messages[0].uuid}`).expect(200)).body.data;
      expect(inbound).toMatchObject({
        direction: 'inbound',
        channel: 'instagram',
        provider: 'meta',
        provider_message_id: mid,
        from: igsid,
        to: pageId,
        delivery_status: 'received',
      });
      const out = await waitFor(async () => {
        const r = await t.http.get(`/api/v1/messages/${messages[1].uuid}`).expect(200);
        return r.body.data.provider_message_id ? r.body.data : undefined;
      });
      expect(out).toMatchObject({
        direction: 'outbound',
        channel: 'instagram',
        provider: 'meta',
        from: pageId,
        to: igsid,
        is_simulation: false,
      });
      expect(out.provider_message_id).toMatch(/^m_[0-9a-f]{24}$/);
    });
  });

  describe('SMS sessions', () => {
    const evaluationOf = (sessionId: string) =>
      waitFor(
        async () => {
          const res = await t.http.get(`/api/v1/sessions/${sessionId}/evaluation`).expect(200);
          return ['evaluated', 'not_evaluated'].includes(res.body.data.status) ? res.body.data : undefined;
        },
        15_000,
        'session evaluation',
      );

    it('an SMS conversation gets a session that ends after the idle timeout and is evaluated as a text one', async () => {
      const agentId = (await createAgent(t, { name: 'SMS agent' })).agent_uuid as string;
      await t.http
        .put(`/api/v1/agents/${agentId}/evaluate`)
        .send({ sessionization: { timeout_minutes: 0.02 } })
        .expect(200);
      const number = newNumber();
      const line = await t.http
        .post('/api/v1/phone-numbers')
        .send({ number, provider: 'twilio' })
        .expect(201);
      await t.http
        .post(`/api/v1/agents/${agentId}/phone-numbers`)
        .send({ phone_number_uuid: line.body.data.uuid, channels: ['sms'] })
        .expect(201);
      const customer = sandboxDestination('5151');
      const text = `Can I change my delivery slot? ${uniq()}`;
      const path = '/hooks/v1/twilio/sms/inbound';
      const params = { From: customer, To: number, Body: text, MessageSid: `SM${uniq()}`, NumMedia: '0' };
      await hooks()
        .post(path)
        .type('form')
        .set('X-Twilio-Signature', twilioSignature(AUTH_TOKEN, `${PUBLIC}${path}`, params))
        .send(params)
        .expect(200);

      const sent = await waitFor(async () => twilio.messages.find((m) => m.params.To === customer));
      expect(sent.params).toMatchObject({ From: number, Body: REPLY });
      const conversation = await conversationOf(customer, 'sms');
      expect(conversation.agent_uuid).toBe(agentId);
      const messages = await waitFor(async () => {
        const m = await messagesOf(conversation.uuid);
        return m.length === 2 ? m : undefined;
      });
      const sessionId = messages[0].session_uuid!;
      expect(sessionId).toEqual(expect.any(String));
      expect(messages[1].session_uuid).toBe(sessionId);
      const sessions = (await t.http.get(`/api/v1/conversations/${conversation.uuid}/sessions`).expect(200))
        .body.data.items as { uuid: string }[];
      expect(sessions.map((s) => s.uuid)).toEqual([sessionId]);

      // Idle for the agent's timeout (1.2 s): the session ends and is evaluated like a chat's.
      const ended = await waitFor(async () => {
        const s = (await t.http.get(`/api/v1/sessions/${sessionId}`).expect(200)).body.data;
        return s.status === 'ended' ? s : undefined;
      });
      expect(ended).toMatchObject({
        conversation_uuid: conversation.uuid,
        agent_uuid: agentId,
        channel: 'sms',
        end_reason: 'timeout',
        message_count: 2,
      });
      const evaluation = await evaluationOf(sessionId);
      expect(evaluation).toMatchObject({ session_uuid: sessionId, status: 'evaluated', summary: SUMMARY });
      expect(evaluation.evaluated_at).toEqual(expect.any(String));
      const records = evaluation.records as Record<string, unknown>[];
      expect(records.map((r) => r.feature).sort()).toEqual(['success_evaluation_prompt', 'summary_prompt']);
      expect(records.find((r) => r.feature === 'success_evaluation_prompt')).toMatchObject({
        type: 'boolean',
        value: true,
        status: 'completed',
        channel: 'sms',
        agent_uuid: agentId,
        conversation_uuid: conversation.uuid,
      });
      // The model judged this SMS exchange.
      const judged = llm
        .callsOf('evaluate')
        .filter((c) => c.messages.some((m) => m.content.includes(`Customer: ${text}\nAgent: ${REPLY}`)));
      expect(judged).toHaveLength(2);
      expect((await t.http.get(`/api/v1/sessions/${sessionId}`).expect(200)).body.data.summary).toBe(SUMMARY);
      const listed = await t.http.get(`/api/v1/evaluations?session_uuid=${sessionId}`).expect(200);
      expect(listed.body.data.items).toHaveLength(2);
      const report = await waitFor(async () => {
        const rows = (await db.query(
          `SELECT data FROM outbox_events WHERE workspace_id = $1 AND type = 'conversation_end_report'
              AND data->'session'->>'uuid' = $2`,
          [t.workspaceId, sessionId],
        )) as { data: { summary: string; transcript: unknown[] } }[];
        return rows[0]?.data;
      });
      expect(report.summary).toBe(SUMMARY);
      expect(report.transcript).toHaveLength(2);

      // The conversation stays open: the customer's next SMS opens a new session in it.
      const again = { ...params, Body: 'One more thing', MessageSid: `SM${uniq()}` };
      await hooks()
        .post(path)
        .type('form')
        .set('X-Twilio-Signature', twilioSignature(AUTH_TOKEN, `${PUBLIC}${path}`, again))
        .send(again)
        .expect(200);
      const later = await waitFor(async () => {
        const m = await messagesOf(conversation.uuid);
        return m.length === 4 ? m : undefined;
      });
      expect(later[2]).toMatchObject({ sender: 'customer', content: 'One more thing' });
      expect(later[2].session_uuid).toEqual(expect.any(String));
      expect(later[2].session_uuid).not.toBe(sessionId);
      expect(await conversationsOf(customer, 'sms')).toHaveLength(1);
    });
  });

  describe('WhatsApp template settings with {{custom.<key>}}', () => {
    let agentId: string;

    beforeAll(async () => {
      agentId = (await createAgent(t, { name: 'Template agent' })).agent_uuid as string;
      await createField(t, { key: 'plan', label: 'Plan', type: 'text' });
    });

    const whatsappLine = async (provider: string, whatsapp: { phone_number_id: string; waba_id: string }) => {
      const number = newNumber();
      const res = await t.http.post('/api/v1/phone-numbers').send({ number, provider, whatsapp }).expect(201);
      await t.http
        .post(`/api/v1/agents/${agentId}/phone-numbers`)
        .send({ phone_number_uuid: res.body.data.uuid, channels: ['whatsapp'] })
        .expect(201);
      return { id: res.body.data.uuid as string, number };
    };
    const templateWithSetting = async (numberId: string) => {
      const name = `plan_notice_${uniq()}`;
      const template = (
        await t.http
          .post('/api/v1/whatsapp/templates')
          .send({
            name,
            language: 'en_US',
            category: 'UTILITY',
            components: [{ type: 'BODY', text: 'Hi {{1}}, your plan is {{2}}.' }],
            phone_number_uuid: numberId,
          })
          .expect(201)
      ).body.data as { uuid: string; template_id: string };
      const setting = await t.http
        .post('/api/v1/whatsapp/template-settings')
        .send({
          template_uuid: template.uuid,
          params: { body: { '1': '{{contact.name}}', '2': '{{custom.plan}}' } },
        })
        .expect(201);
      // The setting's preview shows sample values: a custom token as its key.
      expect(setting.body.data.content).toBe('Hi Ada, your plan is [plan].');
      return { name, template, settingId: setting.body.data.uuid as string };
    };
    const contact = async (name: string, plan: string) =>
      (
        await t.http
          .post('/api/v1/contacts')
          .send({ name, phone_number: sandboxDestination('6161'), custom_fields: { plan } })
          .expect(201)
      ).body.data as { uuid: string; phone_number: string; custom_fields: Record<string, unknown> };

    it('a sandbox send fills {{custom.plan}} from the recipient contact (found by number, or named by contact_uuid)', async () => {
      const line = await whatsappLine('sandbox', {
        phone_number_id: `SBX${uniq()}`,
        waba_id: `SBXWABA${uniq()}`,
      });
      const { template, settingId } = await templateWithSetting(line.id);
      await waitFor(async () => {
        const r = await t.http.get(`/api/v1/whatsapp/templates/${template.uuid}`).expect(200);
        return r.body.data.status === 'APPROVED' ? true : undefined;
      });
      const grace = await contact('Grace', 'gold');
      expect(grace.custom_fields).toEqual({ plan: 'gold' });
      const sent = await t.http
        .post('/api/v1/whatsapp/template')
        .send({ agent_uuid: agentId, template_setting_uuid: settingId, to: grace.phone_number })
        .expect(201);
      expect(sent.body.data).toMatchObject({
        content: 'Hi Grace, your plan is gold.',
        message_type: 'template',
        to: grace.phone_number,
        from: line.number,
        template: { uuid: template.uuid, parameters: { '1': 'Grace', '2': 'gold' } },
      });
      const delivered = await waitFor(async () => {
        const r = await t.http.get(`/api/v1/messages/${sent.body.data.uuid}`).expect(200);
        return r.body.data.delivery_status === 'delivered' || r.body.data.delivery_status === 'read'
          ? r.body.data
          : undefined;
      });
      expect(delivered).toMatchObject({
        content: 'Hi Grace, your plan is gold.',
        template: { parameters: { '1': 'Grace', '2': 'gold' } },
      });
      // contact_uuid names whose fields fill the tokens, whatever number the template goes to.
      const alan = await contact('Alan', 'platinum');
      const named = await t.http
        .post('/api/v1/whatsapp/template')
        .send({
          agent_uuid: agentId,
          template_setting_uuid: settingId,
          to: grace.phone_number,
          contact_uuid: alan.uuid,
        })
        .expect(201);
      expect(named.body.data.content).toBe('Hi Alan, your plan is platinum.');
    });

    it('through Meta, the Cloud API receives the template with the custom field as its parameter', async () => {
      const wa = { metaId: `PN${uniq()}`, waba: `WABA${uniq()}` };
      const line = await whatsappLine('meta', { phone_number_id: wa.metaId, waba_id: wa.waba });
      const { name, template, settingId } = await templateWithSetting(line.id);
      // Meta approves it through the template status webhook.
      await signedMeta(
        {
          object: 'whatsapp_business_account',
          entry: [
            {
              id: wa.waba,
              changes: [
                {
                  field: 'message_template_status_update',
                  value: {
                    event: 'APPROVED',
                    message_template_id: Number(template.template_id),
                    message_template_name: name,
                    message_template_language: 'en_US',
                    reason: 'NONE',
                  },
                },
              ],
            },
          ],
        },
        '/hooks/v1/meta/whatsapp',
      ).expect(200);
      await waitFor(async () => {
        const r = await t.http.get(`/api/v1/whatsapp/templates/${template.uuid}`).expect(200);
        return r.body.data.status === 'APPROVED' ? true : undefined;
      });
      const ada = await contact('Ada', 'silver');
      // The agent's first WhatsApp line is the sandbox one, on another account: a template leaves from a number on
      // its own account by default, and naming a number on another account is refused.
      const bound = (await t.http.get(`/api/v1/agents/${agentId}`).expect(200)).body.data.channels as {
        channel: string;
        phone_number_uuid: string;
      }[];
      const other = bound.find((c) => c.channel === 'whatsapp' && c.phone_number_uuid !== line.id)!;
      const wrong = await t.http
        .post('/api/v1/whatsapp/template')
        .send({
          agent_uuid: agentId,
          template_setting_uuid: settingId,
          to: ada.phone_number,
          phone_number_uuid: other.phone_number_uuid,
        })
        .expect(422);
      expect(wrong.body.error.field).toBe('phone_number_uuid');
      const sent = await t.http
        .post('/api/v1/whatsapp/template')
        .send({ agent_uuid: agentId, template_setting_uuid: settingId, to: ada.phone_number })
        .expect(201);
      expect(sent.body.data).toMatchObject({
        provider: 'meta',
        from: line.number,
        content: 'Hi Ada, your plan is silver.',
      });
      const request = await waitFor(async () =>
        meta.sent(`/${wa.metaId}/messages`).find((r) => r.body.to === ada.phone_number.slice(1)),
      );
      expect(request.body).toMatchObject({
        messaging_product: 'whatsapp',
        type: 'template',
        template: {
          name,
          language: { code: 'en_US' },
          components: [
            {
              type: 'body',
              parameters: [
                { type: 'text', text: 'Ada' },
                { type: 'text', text: 'silver' },
              ],
            },
          ],
        },
      });
    });
  });
});
