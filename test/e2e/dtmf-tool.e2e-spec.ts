import { DataSource } from 'typeorm';
import { createAgent } from '../factories/agent.factory';
import { sandboxDestination, sandboxLine } from '../factories/call.factory';
import { openChat } from '../factories/intent.factory';
import { twilioLine } from '../factories/twilio.factory';
import { useTestApp } from '../setup/suite';
import { defaultAnswer, LlmAnswer, LlmCall, LlmServer } from '../support/llm-server';
import { MediaClient } from '../support/media-client';
import { SpeechServer } from '../support/speech-server';
import { TwilioServer } from '../support/twilio-server';
import { voiceEnv } from '../support/voice-env';
import { waitFor } from '../support/wait';

const PUBLIC = 'https://voice.example.test';
const DTMF_ON = { settings: { voice: { dtmf_tool: true } } };

interface StoredMessage {
  uuid: string;
  sender: string;
  message_type: string;
  content: string;
}

const toolResults = (call: LlmCall) =>
  call.messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(m.content) as Record<string, any>);

/** The model presses `digits` on the turn whose customer said `when`, then answers `after` with the result. */
function pressOn(when: string, digits: unknown, after: string, otherwise = 'How can I help?') {
  return (call: LlmCall): LlmAnswer => {
    if (call.kind !== 'reply') return defaultAnswer(call);
    const last = [...call.messages].reverse().find((m) => m.role === 'user');
    if (last?.content !== when) return { content: otherwise };
    return call.messages.some((m) => m.role === 'tool')
      ? { content: after }
      : { toolCalls: [{ name: 'send_dtmf', arguments: { digits } }] };
  };
}

const offered = (call: LlmCall) => (call.tools ?? []).map((t) => t.function.name);

describe('agents press keys on calls: the send_dtmf tool and the dtmf live action', () => {
  // Declared before the suite start so the media clients close before the app does.
  afterAll(() => clients.forEach((c) => c.close()));
  const suite = useTestApp({
    servers: {
      twilio: () => TwilioServer.start(),
      llm: () => LlmServer.start(),
      speech: () => SpeechServer.start(),
    },
    env: (servers) => ({ ...voiceEnv(servers, PUBLIC), SANDBOX_ANSWER_DELAY_MS: '100' }),
    tenants: ['t', 'other'],
  });
  const clients: MediaClient[] = [];
  let db: DataSource;
  beforeAll(() => {
    db = suite.app.get<DataSource>(DataSource);
  });
  beforeEach(() => suite.llm.reset());

  const callOf = async (id: string) => (await suite.t.http.get(`/api/v1/calls/${id}`).expect(200)).body.data;
  const messagesOf = async (id: string) =>
    (await suite.t.http.get(`/api/v1/conversations/${id}/messages?per_page=100`).expect(200)).body.data
      .items as StoredMessage[];
  const statusOf = (id: string, want: string) =>
    waitFor(async () => ((await callOf(id)).status === want ? true : undefined), 10_000, `call ${want}`);
  /** A sandbox call of the agent, answered. */
  const sandboxCall = async (agentId: string, lastFour = '7777') => {
    const res = await suite.t.http
      .post('/api/v1/call')
      .send({ agent_uuid: agentId, to: sandboxDestination(lastFour) })
      .expect(201);
    const id = res.body.data.uuid as string;
    if (lastFour === '7777') await statusOf(id, 'in-progress');
    return id;
  };
  const say = async (id: string, text: string) =>
    (await suite.t.http.post(`/api/v1/calls/${id}/simulate`).send({ action: 'say', text }).expect(200)).body
      .data;
  const providerLog = async (id: string) =>
    ((await db.query('SELECT provider_log FROM calls WHERE id = $1', [id])) as { provider_log: any[] }[])[0]
      .provider_log;

  it('settings.voice.dtmf_tool is a boolean, off unless set', async () => {
    const bad = await suite.t.http
      .post('/api/v1/agents')
      .send({ name: 'Keys', settings: { voice: { dtmf_tool: 'yes' } } });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'settings.voice.dtmf_tool' });
    const agent = await createAgent(suite.t, { settings: { voice: { first_message: 'Hi' } } });
    expect(agent.settings.voice.dtmf_tool).toBeUndefined();
    const path = `/api/v1/agents/${agent.agent_uuid}`;
    for (const value of [1, null, 'true']) {
      const res = await suite.t.http.patch(path).send({ settings: { voice: { dtmf_tool: value } } });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'settings.voice.dtmf_tool' });
    }
    const on = await suite.t.http.patch(path).send(DTMF_ON).expect(200);
    expect(on.body.data.settings.voice).toEqual({ first_message: 'Hi', dtmf_tool: true });
  });

  it('on a sandbox call the model presses keys: recorded in the provider log, stored as a dtmf message and a tool call', async () => {
    const line = await sandboxLine(suite.t, { name: 'Navigator', ...DTMF_ON });
    const id = await sandboxCall(line.agentId);
    suite.llm.respond = pressOn('Press 1, wait, then 2 and hash', '1w2#', 'I pressed them.');
    const turn = await say(id, 'Press 1, wait, then 2 and hash');
    expect(turn.reply).toMatchObject({ sender: 'agent', content: 'I pressed them.' });

    const [first, second] = suite.llm.callsOf('reply');
    const tool = first.tools!.find((t) => t.function.name === 'send_dtmf')!;
    expect(tool.function.parameters).toMatchObject({
      type: 'object',
      properties: { digits: { type: 'string', pattern: '^[0-9*#w]{1,32}$' } },
      required: ['digits'],
    });
    expect(toolResults(second)).toEqual([{ sent: true, digits: '1w2#' }]);

    const stored = await messagesOf(id);
    const dtmf = stored.filter((m) => m.message_type === 'dtmf');
    expect(dtmf).toEqual([expect.objectContaining({ sender: 'agent', content: '1w2#' })]);
    const toolMessage = stored.find((m) => m.message_type === 'tool')!;
    expect(JSON.parse(toolMessage.content)).toMatchObject({
      intent: 'send_dtmf',
      parameters: { digits: '1w2#' },
      status: 'succeeded',
    });
    expect(stored.at(-1)).toMatchObject({ sender: 'agent', content: 'I pressed them.' });
    expect((await providerLog(id)).filter((e) => e.digits)).toEqual([
      expect.objectContaining({ digits: '1w2#', detail: { CallSid: expect.stringMatching(/^SB/) } }),
    ]);
    const logs = await db.query(
      `SELECT name, status, request FROM action_logs WHERE workspace_id = $1 AND subject_id = $2`,
      [suite.t.workspaceId, id],
    );
    expect(logs).toEqual([
      {
        name: 'send_dtmf',
        status: 'succeeded',
        request: { intent_uuid: null, action: 'builtin', parameters: { digits: '1w2#' } },
      },
    ]);
  });

  it('digits outside 0-9 * # w are invalid_parameters for the model, and nothing is pressed', async () => {
    const line = await sandboxLine(suite.t, DTMF_ON);
    const id = await sandboxCall(line.agentId);
    suite.llm.respond = pressOn('Enter my code', '12a', 'That did not work.');
    await say(id, 'Enter my code');
    expect(toolResults(suite.llm.callsOf('reply')[1])).toEqual([
      {
        error: 'invalid_parameters',
        details: ['digits must be 1 to 32 of 0-9, *, # and w (a half-second pause)'],
      },
    ]);
    const stored = await messagesOf(id);
    expect(stored.filter((m) => m.message_type === 'dtmf')).toEqual([]);
    expect(JSON.parse(stored.find((m) => m.message_type === 'tool')!.content)).toMatchObject({
      status: 'invalid_parameters',
    });
  });

  it('the tool is offered only on phone calls of agents that opted in', async () => {
    const plain = await sandboxLine(suite.t);
    const id = await sandboxCall(plain.agentId);
    await say(id, 'Hello');
    expect(offered(suite.llm.callsOf('reply')[0])).not.toContain('send_dtmf');

    const keys = await createAgent(suite.t, DTMF_ON);
    suite.llm.reset();
    const chat = await openChat(suite.t, keys.agent_uuid as string);
    await suite.t.http.post(`/api/v1/conversations/${chat}/messages`).send({ content: 'Hello' }).expect(201);
    expect(offered(suite.llm.callsOf('reply')[0])).not.toContain('send_dtmf');
  });

  it('POST /calls/action/{uuid}/dtmf presses keys on a sandbox call; checks digits, state and workspace', async () => {
    const line = await sandboxLine(suite.t);
    const id = await sandboxCall(line.agentId);
    const path = `/api/v1/calls/action/${id}/dtmf`;
    for (const [body, code] of [
      [{}, 'VALIDATION_ERROR'],
      [{ digits: '' }, 'INVALID_FORMAT'],
      [{ digits: '12x' }, 'INVALID_FORMAT'],
      [{ digits: '1'.repeat(33) }, 'INVALID_FORMAT'],
      [{ digits: 5 }, 'INVALID_FORMAT'],
    ] as const) {
      const res = await suite.t.http.post(path).send(body);
      expect({ body, status: res.status }).toEqual({ body, status: 422 });
      expect(res.body.error).toMatchObject({ code, field: 'digits' });
    }
    const theirs = await suite.other.http.post(path).send({ digits: '1' });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toMatchObject({ success: false, error: { code: 'RESOURCE_NOT_FOUND' } });
    expect((await messagesOf(id)).filter((m) => m.sender !== 'agent' || m.message_type !== 'text')).toEqual(
      [],
    );

    const res = await suite.t.http.post(path).send({ digits: '1w2#' }).expect(200);
    expect(res.body.message).toBe('DTMF dispatched');
    expect(res.body.data).toMatchObject({ action: 'dtmf', conversation_uuid: id, digits: '1w2#' });
    // Taken effect when answered: the action, then the keys as the agent's message.
    const stored = await messagesOf(id);
    expect(stored.slice(-2)).toEqual([
      expect.objectContaining({ sender: 'system', message_type: 'action' }),
      expect.objectContaining({ sender: 'agent', message_type: 'dtmf', content: '1w2#' }),
    ]);
    expect(JSON.parse(stored.at(-2)!.content)).toEqual({ action: 'dtmf', digits: '1w2#' });
    expect((await providerLog(id)).filter((e) => e.digits).map((e) => e.digits)).toEqual(['1w2#']);

    const ringing = await sandboxCall(line.agentId, '0009');
    await statusOf(ringing, 'ringing');
    const early = await suite.t.http.post(`/api/v1/calls/action/${ringing}/dtmf`).send({ digits: '1' });
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('CONFLICT');
    await suite.t.http.post(`/api/v1/calls/${id}/simulate`).send({ action: 'hangup' }).expect(200);
    const ended = await suite.t.http.post(path).send({ digits: '1' });
    expect(ended.status).toBe(409);
    expect(ended.body.error.code).toBe('CALL_ENDED');
    await suite.t.http.post(`/api/v1/calls/${ringing}/simulate`).send({ action: 'hangup' }).expect(200);
  });

  describe('on Twilio', () => {
    let line: { agentId: string; numberId: string; number: string };
    beforeAll(async () => {
      line = await twilioLine(suite.t, {
        language: 'en',
        settings: {
          voice: { first_message: 'Hello, this is Ava.', end_of_turn_silence_ms: 300, dtmf_tool: true },
        },
      });
    });

    /** Places a Twilio call and connects a media client as Twilio does for the dial's TwiML. */
    const connected = async () => {
      const res = await suite.t.http
        .post('/api/v1/call')
        .send({ agent_uuid: line.agentId, to: '+14155550170' })
        .expect(201);
      const id = res.body.data.uuid as string;
      const sid = (await waitFor(async () => (await callOf(id)).provider_call_id ?? undefined)) as string;
      const twiml = String(suite.twilio.dials().find((d) => String(d.form.Twiml).includes(id))!.form.Twiml);
      const client = await stream(twiml, id, sid);
      await waitFor(async () => (client.events('mark').length ? true : undefined), 15_000, 'greeting');
      return { id, sid, client };
    };
    const stream = async (twiml: string, id: string, sid: string) => {
      const client = await MediaClient.fromTwiml(suite.app.url, twiml, id, sid);
      clients.push(client);
      return client;
    };
    /** The call update that presses `digits`, once Twilio received it. */
    const pressed = (sid: string, digits: string) =>
      waitFor(
        async () =>
          suite.twilio
            .updates(sid)
            .find((u) => String(u.form.Twiml ?? '').includes(`<Play digits="${digits}"/>`)),
        15_000,
        `update with ${digits}`,
      );
    /** What Twilio does with that update: the stream ends, the keys play, a new stream starts. */
    const reconnect = async (old: MediaClient, twiml: string, id: string, sid: string) => {
      old.stop();
      await waitFor(async () => (old.closed ? true : undefined), 5_000, 'old stream closed');
      return stream(twiml, id, sid);
    };
    const agentReply = (id: string, content: string) =>
      waitFor(
        async () => (await messagesOf(id)).find((m) => m.sender === 'agent' && m.content === content),
        15_000,
        content,
      );
    const markOn = (client: MediaClient, name: string) =>
      waitFor(
        async () => (client.events('mark').some((m) => m.mark!.name === name) ? true : undefined),
        15_000,
        `mark ${name}`,
      );

    it('the model presses keys: the call is updated with <Play digits> and the stream, which comes back to the same conversation', async () => {
      suite.llm.respond = pressOn(
        'Press one for billing',
        '1',
        'I chose billing.',
        'Let me check your charges.',
      );
      suite.speech.transcripts.push('Press one for billing', 'What are my charges');
      const { id, sid, client } = await connected();
      client.play('silence', 600);
      client.utter(400, 600);

      const update = await pressed(sid, '1');
      expect(update.form.Twiml).toMatch(
        new RegExp(
          '^<\\?xml[^>]*\\?><Response><Play digits="1"/><Connect>' +
            `<Stream url="wss://voice\\.example\\.test/hooks/v1/twilio/media/${id}">` +
            '<Parameter name="token" value="[A-Za-z0-9_-]{20,}"/></Stream></Connect></Response>$',
        ),
      );
      expect(offered(suite.llm.callsOf('reply')[0])).toContain('send_dtmf');
      // Twilio ends the first stream for the update: the call goes on.
      const again = await reconnect(client, String(update.form.Twiml), id, sid);
      const after = await agentReply(id, 'I chose billing.');
      await markOn(again, after.uuid);
      expect((await callOf(id)).status).toBe('in-progress');

      again.play('silence', 400);
      again.utter(400, 600);
      const next = await agentReply(id, 'Let me check your charges.');
      await markOn(again, next.uuid);
      expect(again.events('media').length).toBeGreaterThan(10);
      expect(again.events('media').every((m) => m.streamSid === again.streamSid)).toBe(true);

      const stored = await messagesOf(id);
      expect(
        stored.filter((m) => m.message_type !== 'tool').map((m) => [m.sender, m.message_type, m.content]),
      ).toEqual([
        ['agent', 'text', 'Hello, this is Ava.'],
        ['customer', 'text', 'Press one for billing'],
        ['agent', 'dtmf', '1'],
        ['agent', 'text', 'I chose billing.'],
        ['customer', 'text', 'What are my charges'],
        ['agent', 'text', 'Let me check your charges.'],
      ]);
      expect(stored.filter((m) => m.message_type === 'tool')).toHaveLength(1);
      expect((await callOf(id)).status).toBe('in-progress');
    });

    it('POST /calls/action/{uuid}/dtmf on a Twilio call updates it the same way; another workspace cannot', async () => {
      const { id, sid, client } = await connected();
      const updatesBefore = suite.twilio.updates(sid).length;
      await suite.other.http.post(`/api/v1/calls/action/${id}/dtmf`).send({ digits: '9' }).expect(404);
      expect(suite.twilio.updates(sid)).toHaveLength(updatesBefore);

      const res = await suite.t.http
        .post(`/api/v1/calls/action/${id}/dtmf`)
        .send({ digits: '9w#' })
        .expect(200);
      expect(res.body.data).toMatchObject({ action: 'dtmf', digits: '9w#' });
      const update = await pressed(sid, '9w#');
      expect(String(update.form.Twiml)).toContain(`/hooks/v1/twilio/media/${id}"><Parameter name="token"`);
      const again = await reconnect(client, String(update.form.Twiml), id, sid);
      // The call goes on on the new stream: a live say is heard there.
      await suite.t.http.post(`/api/v1/calls/action/${id}/say`).send({ message: 'Still here.' }).expect(200);
      const said = await agentReply(id, 'Still here.');
      await markOn(again, said.uuid);
      expect((await callOf(id)).status).toBe('in-progress');
      expect((await messagesOf(id)).filter((m) => m.message_type === 'dtmf')).toEqual([
        expect.objectContaining({ sender: 'agent', content: '9w#' }),
      ]);
      // The customer hanging up on the new stream still ends the call.
      again.stop();
      await statusOf(id, 'completed');
    });
  });
});
