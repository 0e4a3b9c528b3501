import { DataSource } from 'typeorm';
import { OutboundClock } from '@/modules/outbound/engine/outbound-clock';
import { sandboxDestination, sandboxLine } from '../factories/call.factory';
import { createContact } from '../factories/contact.factory';
import { addMembers, createCampaign, createPool, tasksOf } from '../factories/outbound.factory';
import { twilioLine } from '../factories/twilio.factory';
import { createWebhook } from '../factories/webhook.factory';
import { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { TestApp } from '../setup/test-app';
import { defaultAnswer, LlmServer } from '../support/llm-server';
import { MediaClient } from '../support/media-client';
import { SpeechServer } from '../support/speech-server';
import { postSigned, TwilioServer } from '../support/twilio-server';
import { voiceEnv } from '../support/voice-env';
import { waitFor } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

const PUBLIC = 'https://voicemail.example.test';
const REPLY = 'Happy to help with that.';
type Call = Record<string, any>;

jest.setTimeout(120_000);

/** Answering-machine detection: Twilio's asynchronous AMD, the sandbox by number, the greeting heard, outcomes. */
describe('voicemail: answering-machine detection on outbound calls', () => {
  // Declared before the suite start so they run while the app is still up.
  afterAll(async () => {
    clients.forEach((c) => c.close());
    await clock?.reset();
  });
  // Campaigns: the dispatchers claim every workspace's due tasks, so this suite keeps a database of its own.
  const suite = useTestApp({
    servers: {
      twilio: () => TwilioServer.start(),
      llm: () => LlmServer.start(),
      speech: () => SpeechServer.start(),
      hooks: () => WebhookReceiver.start(),
    },
    database: 'voicemail',
    env: (servers) => ({
      ...voiceEnv(servers, PUBLIC),
      SANDBOX_ANSWER_DELAY_MS: '100',
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}-voicemail`,
    }),
    tenants: ['t', 'other'],
  });
  let app: TestApp;
  let t: TestTenant;
  let other: TestTenant;
  let twilio: TwilioServer;
  let llm: LlmServer;
  let speech: SpeechServer;
  let hooks: WebhookReceiver;
  let db: DataSource;
  let clock: OutboundClock;
  let sandbox: { agentId: string; numberId: string; number: string };
  let line: { agentId: string; numberId: string; number: string };
  const clients: MediaClient[] = [];

  const callOf = async (id: string, tenant = t): Promise<Call> =>
    (await tenant.http.get(`/api/v1/calls/${id}`).expect(200)).body.data;
  const callWhere = (id: string, ok: (c: Call) => boolean, what = 'call', tenant = t) =>
    waitFor(
      async () => {
        const c = await callOf(id, tenant);
        return ok(c) ? c : undefined;
      },
      15_000,
      `${what} ${id}`,
    );
  const messagesOf = async (id: string) =>
    (await t.http.get(`/api/v1/conversations/${id}/messages?per_page=100`).expect(200)).body.data.items as {
      uuid: string;
      sender: string;
      content: string;
      message_type: string;
    }[];
  const providerLog = async (id: string) =>
    ((await db.query(`SELECT provider_log FROM calls WHERE id = $1`, [id]))[0].provider_log ?? []) as Record<
      string,
      unknown
    >[];
  const amdLog = async (id: string) => (await providerLog(id)).filter((e) => e.kind === 'machine_detection');
  const events = async (type: string, workspaceId = t.workspaceId) =>
    (await db.query(`SELECT agent_id, data FROM outbox_events WHERE workspace_id = $1 AND type = $2`, [
      workspaceId,
      type,
    ])) as { agent_id: string | null; data: Record<string, any> }[];

  /** A sandbox call of `sandbox`'s agent; `voicemail` is the call's own policy. */
  const sandboxCall = async (
    lastFour: string,
    voicemail?: Record<string, unknown>,
    tenant = t,
    agent = sandbox,
  ) => {
    const res = await tenant.http.post('/api/v1/call').send({
      agent_uuid: agent.agentId,
      to: sandboxDestination(lastFour),
      ...(voicemail ? { voicemail } : {}),
    });
    expect({ status: res.status, body: res.body }).toMatchObject({ status: 201 });
    return res.body.data.uuid as string;
  };

  // ---- Twilio ----
  const hook = (path: string, form: Record<string, string>, options?: { signature?: string | null }) =>
    postSigned(app.url, `${PUBLIC}${path}`, form, options);
  const twilioCall = async (body: Record<string, unknown> = {}) => {
    const res = await t.http
      .post('/api/v1/call')
      .send({ agent_uuid: line.agentId, to: '+14155550177', ...body })
      .expect(201);
    const id = res.body.data.uuid as string;
    const sid = (await waitFor(async () => (await callOf(id)).provider_call_id ?? undefined)) as string;
    const dial = twilio.dials().find((d) => String(d.form.Twiml).includes(id))!;
    return { id, sid, dial };
  };
  /** A Twilio call answered (the status callback), with detection on unless told otherwise. */
  const answeredTwilio = async (voicemail: Record<string, unknown> = { detection: true }) => {
    const placed = await twilioCall({ voicemail });
    await hook(`/hooks/v1/twilio/calls/${placed.id}/status`, {
      CallSid: placed.sid,
      CallStatus: 'in-progress',
      SequenceNumber: '1',
    }).expect(204);
    await callWhere(placed.id, (c) => c.status === 'in-progress', 'answered');
    return placed;
  };
  const amd = (id: string, sid: string, answeredBy: string, options?: { signature?: string | null }) =>
    hook(
      `/hooks/v1/twilio/calls/${id}/amd`,
      {
        CallSid: sid,
        AccountSid: 'AC' + '0'.repeat(32),
        AnsweredBy: answeredBy,
        MachineDetectionDuration: '4200',
      },
      options,
    );

  beforeAll(async () => {
    ({ app, t, other, twilio, llm, speech, hooks } = suite);
    db = app.get<DataSource>(DataSource);
    clock = app.get<OutboundClock>(OutboundClock);
    await clock.reset();
    llm.respond = (call) => (call.kind === 'reply' ? { content: REPLY } : defaultAnswer(call));
    sandbox = await sandboxLine(t, { settings: { voice: { first_message: 'Hello from Acme.' } } });
    line = await twilioLine(t, {
      language: 'en',
      settings: { voice: { first_message: 'Hello, this is Acme calling.', end_of_turn_silence_ms: 300 } },
    });
  });

  it('refuses a policy that does not hold, naming the field (call, agent settings, campaign)', async () => {
    const refused = async (res: { status: number; body: any }, field: string, code = 'INVALID_FORMAT') => {
      expect({ status: res.status, code: res.body.error?.code, field: res.body.error?.field }).toEqual({
        status: 422,
        code,
        field,
      });
    };
    const call = (voicemail: unknown) =>
      t.http.post('/api/v1/call').send({ agent_uuid: sandbox.agentId, to: sandboxDestination(), voicemail });
    await refused(await call({ action: 'shout' }), 'voicemail.action');
    await refused(await call({ detection: 'yes' }), 'voicemail.detection');
    await refused(await call({ retry_on_voicemail: 1 }), 'voicemail.retry_on_voicemail');
    await refused(await call({ message: 'x'.repeat(2001) }), 'voicemail.message');
    await refused(await call('on'), 'voicemail');
    // leave_message with no message at any level.
    await refused(
      await call({ detection: true, action: 'leave_message' }),
      'voicemail.message',
      'VALIDATION_ERROR',
    );
    await refused(
      await t.http
        .patch(`/api/v1/agents/${sandbox.agentId}`)
        .send({ settings: { voice: { voicemail: { action: 'shout' } } } }),
      'settings.voice.voicemail.action',
    );
    const pool = await createPool(t);
    await refused(
      await t.http.post('/api/v1/campaigns').send({
        name: 'Bad',
        agent_uuid: sandbox.agentId,
        pool_uuids: [pool.uuid],
        voicemail: { action: 'x' },
      }),
      'voicemail.action',
    );
    await refused(
      await t.http.post('/api/v1/campaigns').send({
        name: 'Bad',
        agent_uuid: sandbox.agentId,
        pool_uuids: [pool.uuid],
        voicemail: { detection: true, action: 'leave_message' },
      }),
      'voicemail.message',
      'VALIDATION_ERROR',
    );
    // Nothing was placed.
    expect((await t.http.get('/api/v1/calls').expect(200)).body.data.items).toEqual([]);
  });

  it('the Twilio dial carries asynchronous AMD (DetectMessageEnd) with its signed callback only when detection is on', async () => {
    const off = await twilioCall();
    for (const key of [
      'MachineDetection',
      'AsyncAmd',
      'AsyncAmdStatusCallback',
      'AsyncAmdStatusCallbackMethod',
    ])
      expect(off.dial.form[key]).toBeUndefined();
    expect((await callOf(off.id)).voicemail).toEqual({
      detection: false,
      action: 'hang_up',
      message: null,
      retry_on_voicemail: false,
    });
    const on = await twilioCall({ voicemail: { detection: true } });
    expect(on.dial.form).toMatchObject({
      MachineDetection: 'DetectMessageEnd',
      AsyncAmd: 'true',
      AsyncAmdStatusCallback: `${PUBLIC}/hooks/v1/twilio/calls/${on.id}/amd`,
      AsyncAmdStatusCallbackMethod: 'POST',
    });
    for (const id of [off.id, on.id])
      await t.http.post(`/api/v1/calls/action/${id}/hangup`).send({}).expect(200);
  });

  it('AMD callbacks are signed (unsigned 401), repeats are dropped, a late one is kept in the provider log only', async () => {
    const { id, sid } = await answeredTwilio();
    const unsigned = await amd(id, sid, 'human', { signature: null });
    expect(unsigned.status).toBe(401);
    expect(unsigned.body.error.code).toBe('INVALID_SIGNATURE');
    expect((await amd(id, sid, 'human', { signature: 'bm90IGEgc2lnbmF0dXJl' })).status).toBe(401);
    await new Promise((r) => setTimeout(r, 300));
    expect((await callOf(id)).answered_by).toBeNull();
    expect(await amdLog(id)).toEqual([]);

    await amd(id, sid, 'human').expect(204);
    const human = await callWhere(id, (c) => c.answered_by === 'human', 'human');
    expect(human).toMatchObject({
      status: 'in-progress',
      machine_detection: { source: 'twilio', result: 'human', duration_ms: 4200 },
    });
    await amd(id, sid, 'human').expect(204);
    await new Promise((r) => setTimeout(r, 300));
    expect(await amdLog(id)).toEqual([
      expect.objectContaining({ AnsweredBy: 'human', CallSid: sid, applied: true }),
    ]);
    await hook(`/hooks/v1/twilio/calls/${id}/status`, {
      CallSid: sid,
      CallStatus: 'completed',
      SequenceNumber: '2',
    }).expect(204);
    await callWhere(id, (c) => c.status === 'completed', 'ended');

    // A call that ended before its detection answered: the late answer is logged and changes nothing.
    const late = await answeredTwilio();
    await hook(`/hooks/v1/twilio/calls/${late.id}/status`, {
      CallSid: late.sid,
      CallStatus: 'completed',
      SequenceNumber: '2',
    }).expect(204);
    await callWhere(late.id, (c) => c.status === 'completed', 'ended');
    await amd(late.id, late.sid, 'machine_end_beep').expect(204);
    await waitFor(async () => ((await amdLog(late.id)).length ? true : undefined), 10_000, 'late AMD logged');
    expect(await amdLog(late.id)).toEqual([
      expect.objectContaining({ AnsweredBy: 'machine_end_beep', applied: false }),
    ]);
    expect(await callOf(late.id)).toMatchObject({
      status: 'completed',
      end_reason: 'customer_hangup',
      answered_by: null,
    });
    expect(await events('call_voicemail')).toEqual([]);
    await hook(`/hooks/v1/twilio/calls/00000000-0000-4000-8000-000000000000/amd`, {
      CallSid: sid,
      AnsweredBy: 'human',
    }).expect(404);
  });

  it('each AnsweredBy: human and unknown go on; every machine value hangs up (voicemail); fax hangs up (fax)', async () => {
    const cases: [string, string, string | null][] = [
      ['human', 'human', null],
      ['unknown', 'unknown', null],
      ['machine_start', 'machine', 'voicemail'],
      ['machine_end_beep', 'machine', 'voicemail'],
      ['machine_end_silence', 'machine', 'voicemail'],
      ['machine_end_other', 'machine', 'voicemail'],
      ['fax', 'fax', 'fax'],
    ];
    for (const [value, answeredBy, endReason] of cases) {
      const { id, sid } = await answeredTwilio();
      await amd(id, sid, value).expect(204);
      const after = await callWhere(
        id,
        (c) => c.answered_by === answeredBy && (endReason ? c.status === 'completed' : true),
        value,
      );
      if (!endReason) {
        expect(after.status).toBe('in-progress');
        await t.http.post(`/api/v1/calls/action/${id}/hangup`).send({}).expect(200);
        continue;
      }
      expect(after).toMatchObject({ status: 'completed', end_reason: endReason, answered_by: answeredBy });
      expect(after.machine_detection).toMatchObject({ source: 'twilio', result: value });
      // Hung up through REST; the agent said nothing more.
      await waitFor(async () =>
        twilio.updates(sid).some((u) => u.form.Status === 'completed') ? true : undefined,
      );
      const said = (await messagesOf(id)).filter((m) => m.sender === 'agent').map((m) => m.content);
      expect(said).toEqual(['Hello, this is Acme calling.']);
    }
    const voicemails = (await events('call_voicemail')).map((e) => e.data.machine_detection.result);
    expect(voicemails.sort()).toEqual([
      'machine_end_beep',
      'machine_end_other',
      'machine_end_silence',
      'machine_start',
    ]);
  });

  it('leave_message: after the beep the agent stops, the message goes out on the media stream, then the call hangs up', async () => {
    const placed = await twilioCall({
      variables: { name: 'Ada' },
      voicemail: { detection: true, action: 'leave_message', message: 'Hi {{name}}, please call Acme back.' },
    });
    expect((await callOf(placed.id)).voicemail.message).toBe('Hi Ada, please call Acme back.');
    const client = await MediaClient.fromTwiml(
      app.url,
      String(placed.dial.form.Twiml),
      placed.id,
      placed.sid,
    );
    clients.push(client);
    await callWhere(placed.id, (c) => c.status === 'in-progress', 'answered by the stream');
    await waitFor(async () => (client.events('mark').length >= 1 ? true : undefined), 15_000, 'greeting');
    const before = client.received.length;

    await amd(placed.id, placed.sid, 'machine_end_beep').expect(204);
    // Watched closely: the REST hang-up must find the message already played (its mark echoed).
    const hungUpAt = await waitFor(
      async () =>
        twilio.updates(placed.sid).some((u) => u.form.Status === 'completed')
          ? client.received.length
          : undefined,
      20_000,
      'hang-up',
    );
    const ended = await callWhere(placed.id, (c) => c.status === 'completed', 'ended');
    expect(ended).toMatchObject({ end_reason: 'voicemail', answered_by: 'machine' });
    const messages = await messagesOf(placed.id);
    const left = messages.find(
      (m) => m.sender === 'agent' && m.content === 'Hi Ada, please call Acme back.',
    )!;
    expect(left).toBeDefined();
    const action = messages.find((m) => m.message_type === 'action')!;
    expect(JSON.parse(action.content)).toEqual({
      action: 'voicemail',
      answered_by: 'machine',
      message: 'Hi Ada, please call Acme back.',
    });
    // What the agent was saying stopped (clear), then the message's audio, then its mark, all before the hang-up.
    const after = client.received.slice(before, hungUpAt);
    const events = after.map((m) => m.event);
    const markAt = after.findIndex((m) => m.event === 'mark' && m.mark?.name === left.uuid);
    expect(markAt).toBeGreaterThan(0);
    expect(events.indexOf('clear')).toBeGreaterThanOrEqual(0);
    expect(events.indexOf('clear')).toBeLessThan(events.indexOf('media'));
    expect(after.slice(0, markAt).filter((m) => m.event === 'media').length).toBeGreaterThan(10);
    expect(speech.speeches.map((s) => s.input)).toContain('Hi Ada, please call Acme back.');
  });

  it('sandbox: 0005 is a machine and 0006 a fax under detection; other numbers are people; no detection, no answer', async () => {
    const machine = await sandboxCall('0005', { detection: true });
    const fax = await sandboxCall('0006', { detection: true });
    const person = await sandboxCall('7777', { detection: true });
    const undetected = await sandboxCall('0005');
    expect(await callWhere(machine, (c) => c.status === 'completed', 'machine')).toMatchObject({
      end_reason: 'voicemail',
      answered_by: 'machine',
      machine_detection: { source: 'sandbox', result: 'machine_end_beep' },
    });
    expect(await callWhere(fax, (c) => c.status === 'completed', 'fax')).toMatchObject({
      end_reason: 'fax',
      answered_by: 'fax',
    });
    expect(await callWhere(person, (c) => c.answered_by === 'human', 'person')).toMatchObject({
      status: 'in-progress',
    });
    await new Promise((r) => setTimeout(r, 400));
    expect(await callOf(undetected)).toMatchObject({ status: 'in-progress', answered_by: null });
    // The analytics split the calls by who answered.
    const stats = (await t.http.get(`/api/v1/analytics/calls?agent_uuid=${sandbox.agentId}`).expect(200)).body
      .data;
    expect(stats.totals.answered_by).toEqual({ human: 1, machine: 1, fax: 1, unknown: 0 });
    expect(stats.by_channel[0].answered_by).toEqual({ human: 1, machine: 1, fax: 1, unknown: 0 });
    for (const id of [person, undetected])
      await t.http.post(`/api/v1/calls/action/${id}/hangup`).send({}).expect(200);
  });

  it("leave_message in the sandbox (the agent's settings): the message is said, then the call ends voicemail", async () => {
    const agent = await sandboxLine(t, {
      settings: {
        voice: {
          first_message: 'Hello!',
          voicemail: { detection: true, action: 'leave_message', message: 'Sorry we missed you, {{name}}.' },
        },
      },
    });
    const res = await t.http
      .post('/api/v1/call')
      .send({ agent_uuid: agent.agentId, to: sandboxDestination('0005'), variables: { name: 'Bo' } })
      .expect(201);
    const id = res.body.data.uuid as string;
    expect(await callWhere(id, (c) => c.status === 'completed', 'ended')).toMatchObject({
      end_reason: 'voicemail',
      answered_by: 'machine',
      voicemail: { detection: true, action: 'leave_message', message: 'Sorry we missed you, Bo.' },
    });
    const said = (await messagesOf(id)).filter((m) => m.sender === 'agent').map((m) => m.content);
    expect(said).toEqual(['Hello!', 'Sorry we missed you, Bo.']);
  });

  it('continue: the call goes on after a machine, the agent keeps talking', async () => {
    const id = await sandboxCall('0005', { detection: true, action: 'continue' });
    await callWhere(id, (c) => c.answered_by === 'machine', 'machine');
    await new Promise((r) => setTimeout(r, 300));
    expect((await callOf(id)).status).toBe('in-progress');
    const turn = await t.http
      .post(`/api/v1/calls/${id}/simulate`)
      .send({ action: 'say', text: 'Please leave a message after the tone.' })
      .expect(200);
    expect(turn.body.data.reply.content).toBe(REPLY);
    expect(turn.body.data.call).toMatchObject({ status: 'in-progress', answered_by: 'machine' });
    const [event] = (await events('call_voicemail')).filter((e) => e.data.call.uuid === id);
    expect(event.data).toMatchObject({ answered_by: 'machine', action: 'continue' });
    await t.http.post(`/api/v1/calls/action/${id}/hangup`).send({}).expect(200);
  });

  it('without provider AMD the first words decide: a greeting in each language marks a machine and ends the call', async () => {
    const greetings: [string, string][] = [
      ['en', "Hi, you've reached Sam, please leave a message after the tone."],
      ['es', 'Hola, deje su mensaje después de la señal.'],
      ['fr', "Votre correspondant n'est pas disponible."],
      ['de', 'Der gewünschte Gesprächspartner ist nicht erreichbar.'],
      ['it', 'Il cliente da lei chiamato non è raggiungibile.'],
      ['pt', 'Deixe sua mensagem após o sinal.'],
      ['ja', 'ただいま電話に出ることができません。発信音の後にメッセージをどうぞ。'],
    ];
    for (const [language, text] of greetings) {
      const id = await sandboxCall('7777', { detection: true });
      await callWhere(id, (c) => c.status === 'in-progress', 'answered');
      const turn = await t.http
        .post(`/api/v1/calls/${id}/simulate`)
        .send({ action: 'say', text })
        .expect(200);
      expect(turn.body.data).toMatchObject({
        message: { sender: 'customer', content: text },
        reply: null,
        reply_unavailable_reason: 'The call reached a voicemail',
      });
      const ended = await callWhere(id, (c) => c.status === 'completed', language);
      expect(ended).toMatchObject({
        end_reason: 'voicemail',
        answered_by: 'machine',
        machine_detection: { source: 'transcript', language },
      });
    }
    // A person's first words go on as a turn; a greeting said later is only words.
    const id = await sandboxCall('7777', { detection: true });
    await callWhere(id, (c) => c.status === 'in-progress', 'answered');
    const first = await t.http.post(`/api/v1/calls/${id}/simulate`).send({ action: 'say', text: 'Hello?' });
    expect(first.body.data.reply.content).toBe(REPLY);
    const later = await t.http
      .post(`/api/v1/calls/${id}/simulate`)
      .send({ action: 'say', text: 'She is not available, can I leave a message?' })
      .expect(200);
    expect(later.body.data.reply.content).toBe(REPLY);
    expect(later.body.data.call.status).toBe('in-progress');
    // Detection off: never screened.
    const plain = await sandboxCall('7777');
    await callWhere(plain, (c) => c.status === 'in-progress', 'answered');
    const words = await t.http
      .post(`/api/v1/calls/${plain}/simulate`)
      .send({ action: 'say', text: 'Please leave a message after the tone.' })
      .expect(200);
    expect(words.body.data.reply.content).toBe(REPLY);
    for (const c of [id, plain]) await t.http.post(`/api/v1/calls/action/${c}/hangup`).send({}).expect(200);
  });

  it('call_voicemail reaches webhooks and starts flows; another workspace and its call are untouched', async () => {
    await createWebhook(t, { url: hooks.url('/mine'), events: ['call_voicemail'] });
    await createWebhook(other, { url: hooks.url('/theirs'), events: ['call_voicemail'] });
    const flow = (await t.http.post('/api/v1/flows').send({ name: 'voicemail' }).expect(201)).body.data;
    await t.http
      .post(`/api/v1/flow/${flow.uuid}/steps`)
      .send({ kind: 'trigger', trigger_key: 'call_voicemail', config: { agent_uuid: sandbox.agentId } })
      .expect(201);
    await t.http
      .post(`/api/v1/flow/${flow.uuid}/steps`)
      .send({
        kind: 'action',
        action_key: 'send_webhook',
        config: {
          url: hooks.url('/flow'),
          body: { call: '{{step1.call.uuid}}', answered_by: '{{step1.answered_by}}' },
        },
      })
      .expect(201);
    await t.http.post(`/api/v1/flow/${flow.uuid}/deploy`).expect(200);
    const otherLine = await sandboxLine(other);
    const theirs = await sandboxCall('7777', undefined, other, otherLine);
    await callWhere(theirs, (c) => c.status === 'in-progress', 'their call', other);

    const id = await sandboxCall('0005', { detection: true });
    await callWhere(id, (c) => c.status === 'completed', 'voicemail');
    const delivered = await waitFor(
      async () => hooks.at('/mine').find((r) => r.body.includes(id)),
      20_000,
      'call_voicemail delivered',
    );
    expect(JSON.parse(delivered.body)).toMatchObject({
      type: 'call_voicemail',
      data: { answered_by: 'machine', action: 'hang_up', call: { uuid: id, answered_by: 'machine' } },
    });
    const ran = await waitFor(
      async () => hooks.at('/flow').find((r) => r.body.includes(id)),
      20_000,
      'the flow ran',
    );
    expect(JSON.parse(ran.body)).toEqual({ call: id, answered_by: 'machine' });
    // A catalog entry describes the trigger.
    const catalog = (await t.http.get('/api/v1/flow/catalog').expect(200)).body.data;
    expect(catalog.triggers.map((x: { key: string }) => x.key)).toContain('call_voicemail');

    expect(hooks.at('/theirs')).toEqual([]);
    await other.http.get(`/api/v1/calls/${id}`).expect(404);
    await other.http.post(`/api/v1/calls/action/${id}/hangup`).send({}).expect(404);
    expect(await callOf(theirs, other)).toMatchObject({
      status: 'in-progress',
      answered_by: null,
      voicemail: {
        detection: false,
      },
    });
    expect(await events('call_voicemail', other.workspaceId)).toEqual([]);
    await other.http.post(`/api/v1/calls/action/${theirs}/hangup`).send({}).expect(200);
  });

  it("campaigns: a voicemail is neither answered nor failed; retry_on_voicemail follows the campaign's retry policy", async () => {
    const base = Date.parse('2026-12-02T10:00:00Z');
    await clock.set(base);
    const agent = await sandboxLine(t, { settings: { voice: { silence_timeout_seconds: 1 } } });
    const contacts = async (fours: string[]) => {
      const out: Record<string, any>[] = [];
      for (const four of fours) out.push(await createContact(t, { phone_number: sandboxDestination(four) }));
      return out;
    };
    const [machine, person] = await contacts(['0005', '7777']);
    const pool = await createPool(t, { type: 'Parallel' });
    await addMembers(t, pool.uuid, [machine.uuid, person.uuid]);
    const campaign = await createCampaign(t, {
      agent_uuid: agent.agentId,
      pool_uuids: [pool.uuid],
      retry: { max_attempts: 2, interval_minutes: 30, strategy: 'fixed', on: ['busy', 'no-answer'] },
      voicemail: { detection: true, retry_on_voicemail: true },
    });
    expect(campaign.voicemail).toEqual({ detection: true, retry_on_voicemail: true });
    await t.http.post(`/api/v1/campaigns/${campaign.uuid}/start`).expect(200);
    const task = async (contact: string) =>
      (await tasksOf(t, `campaign_uuid=${campaign.uuid}&contact_uuid=${contact}`))[0];
    const taskWhere = (contact: string, ok: (x: Record<string, any>) => boolean, what: string) =>
      waitFor(
        async () => {
          const x = await task(contact);
          return x && ok(x) ? x : undefined;
        },
        30_000,
        what,
      );

    const retried = await taskWhere(
      machine.uuid,
      (x) => x.status === 'scheduled' && x.attempts_count === 1,
      'retry',
    );
    expect(retried.last_outcome).toBe('voicemail');
    expect(Date.parse(retried.next_attempt_at)).toBeGreaterThanOrEqual(base + 30 * 60_000);
    await taskWhere(person.uuid, (x) => x.status === 'completed', 'answered');
    await clock.set(base + 31 * 60_000);
    const last = await taskWhere(machine.uuid, (x) => x.status === 'voicemail', 'ended on voicemail');
    expect(last).toMatchObject({ attempts_count: 2, last_outcome: 'voicemail', failure_reason: null });
    const detail = (await t.http.get(`/api/v1/tasks/${last.uuid}`).expect(200)).body.data;
    expect(detail.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['voicemail', 'voicemail']);
    const stats = (await t.http.get(`/api/v1/campaigns/${campaign.uuid}`).expect(200)).body.data.stats;
    expect(stats).toMatchObject({
      tasks: 2,
      completed: 1,
      voicemail: 1,
      failed: 0,
      answered: 1,
      attempts: 3,
    });
    const members = (await t.http.get(`/api/v1/pools/${pool.uuid}/contacts`).expect(200)).body.data.items;
    expect(members.find((m: { contact_uuid: string }) => m.contact_uuid === machine.uuid).status).toBe(
      'Voicemail',
    );

    // Without retry_on_voicemail the task ends on its first voicemail; a retry makes one more attempt.
    const [again] = await contacts(['0005']);
    const pool2 = await createPool(t);
    await addMembers(t, pool2.uuid, [again.uuid]);
    const once = await createCampaign(t, {
      agent_uuid: agent.agentId,
      pool_uuids: [pool2.uuid],
      voicemail: { detection: true },
    });
    await t.http.post(`/api/v1/campaigns/${once.uuid}/start`).expect(200);
    const ended = await waitFor(
      async () => {
        const [x] = await tasksOf(t, `campaign_uuid=${once.uuid}`);
        return x?.status === 'voicemail' ? x : undefined;
      },
      30_000,
      'voicemail once',
    );
    expect(ended).toMatchObject({ attempts_count: 1, last_outcome: 'voicemail' });
    const onceStats = (await t.http.get(`/api/v1/campaigns/${once.uuid}`).expect(200)).body.data.stats;
    expect(onceStats).toMatchObject({ voicemail: 1, answered: 0, failed: 0, completed: 0 });
    await t.http.post(`/api/v1/tasks/${ended.uuid}/retry`).expect(200);
    await waitFor(
      async () => {
        const x = (await t.http.get(`/api/v1/tasks/${ended.uuid}`).expect(200)).body.data;
        return x.status === 'voicemail' && x.attempts_count === 2 ? x : undefined;
      },
      30_000,
      'retried voicemail',
    );
  });
});
