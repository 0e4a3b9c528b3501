import { MediaSessions } from '@/modules/voice/media/media-sessions';
import { TestTenant } from '../factories/workspace.factory';
import { twilioLine } from '../factories/twilio.factory';
import { useTestApp } from '../setup/suite';
import { TestApp } from '../setup/test-app';
import type { ApiProcess } from '../support/api-process-client';
import { defaultAnswer, LlmServer } from '../support/llm-server';
import { MediaClient } from '../support/media-client';
import { SpeechServer } from '../support/speech-server';
import { postSigned, TwilioServer } from '../support/twilio-server';
import { startVoiceReplica, voiceEnv } from '../support/voice-env';
import { waitFor } from '../support/wait';

const PUBLIC = 'https://voice.example.test';
const REPLY = 'Sure, I can help with that today. What is your order number please?';

describe('voice: media streams, turn-taking, streamed replies, barge-in', () => {
  // Declared before the suite start so the media clients close before the app does.
  afterAll(() => clients.forEach((c) => c.close()));
  const suite = useTestApp({
    servers: {
      twilio: () => TwilioServer.start(),
      llm: () => LlmServer.start(),
      speech: () => SpeechServer.start(),
    },
    env: (servers) => voiceEnv(servers, PUBLIC),
    tenants: ['t', 'other'],
  });
  let twilio: TwilioServer;
  let llm: LlmServer;
  let speech: SpeechServer;
  let app: TestApp;
  let t: TestTenant;
  let other: TestTenant;
  let line: { agentId: string; numberId: string; number: string };
  const clients: MediaClient[] = [];

  const callOf = async (id: string) => (await t.http.get(`/api/v1/calls/${id}`).expect(200)).body.data;
  const messagesOf = async (id: string) =>
    (await t.http.get(`/api/v1/conversations/${id}/messages?per_page=100`).expect(200)).body.data.items as {
      uuid: string;
      sender: string;
      content: string;
      interrupted?: boolean;
    }[];
  /** Places a call and connects a Media Streams client with the token Twilio was given in the TwiML. */
  const connected = async (agentId = line.agentId) => {
    const res = await t.http
      .post('/api/v1/call')
      .send({ agent_uuid: agentId, to: '+14155550150' })
      .expect(201);
    const id = res.body.data.uuid as string;
    const sid = (await waitFor(async () => (await callOf(id)).provider_call_id ?? undefined)) as string;
    const twiml = String(twilio.dials().find((d) => String(d.form.Twiml).includes(id))!.form.Twiml);
    const client = await streamFrom(twiml, id, sid);
    return { id, sid, client };
  };
  /** Connects a Media Streams client as Twilio does for a `<Connect><Stream>` TwiML. */
  const streamFrom = async (twiml: string, id: string, sid: string) => {
    const client = await MediaClient.fromTwiml(app.url, twiml, id, sid);
    clients.push(client);
    return client;
  };
  const markFor = (client: MediaClient, messageId: string) =>
    waitFor(
      async () => (client.events('mark').some((m) => m.mark!.name === messageId) ? true : undefined),
      15_000,
      `mark ${messageId}`,
    );
  const agentMessage = (id: string, content: string) =>
    waitFor(
      async () => (await messagesOf(id)).find((m) => m.sender === 'agent' && m.content === content),
      15_000,
      content,
    );

  beforeAll(async () => {
    ({ twilio, llm, speech, app, t, other } = suite);
    line = await twilioLine(t, {
      language: 'en',
      settings: {
        voice: { first_message: 'Hello, thanks for calling us today.', end_of_turn_silence_ms: 300 },
      },
    });
    llm.respond = (call) => (call.kind === 'reply' ? { content: REPLY } : defaultAnswer(call));
  });

  it('the stream answers the call, the agent greets; two utterances give two customer messages and two replies as media then a mark', async () => {
    speech.transcripts.push('I need help with my order', 'It is one two three');
    const { id, client } = await connected();
    await waitFor(async () => ((await callOf(id)).status === 'in-progress' ? true : undefined));
    await waitFor(
      async () => (client.events('mark').length >= 1 ? true : undefined),
      10_000,
      'greeting mark',
    );
    client.play('silence', 600);
    client.utter(400, 600);
    await waitFor(async () => (client.events('mark').length >= 2 ? true : undefined), 15_000, 'first reply');
    client.play('silence', 400);
    client.utter(400, 600);
    await waitFor(async () => (client.events('mark').length >= 3 ? true : undefined), 15_000, 'second reply');

    const messages = await messagesOf(id);
    expect(messages.map((m) => [m.sender, m.content])).toEqual([
      ['agent', 'Hello, thanks for calling us today.'],
      ['customer', 'I need help with my order'],
      ['agent', REPLY],
      ['customer', 'It is one two three'],
      ['agent', REPLY],
    ]);
    // Each reply: µ-law media frames of 160 bytes, then a mark named after the stored message.
    const marks = client.events('mark').map((m) => m.mark!.name);
    expect(marks).toEqual([messages[0].uuid, messages[2].uuid, messages[4].uuid]);
    const order = client.received.map((m) => m.event);
    const firstMark = order.indexOf('mark');
    expect(order.slice(0, firstMark).every((e) => e === 'media')).toBe(true);
    expect(
      order.slice(firstMark + 1, order.indexOf('mark', firstMark + 1)).filter((e) => e === 'media').length,
    ).toBeGreaterThan(10);
    for (const m of client.events('media')) {
      expect(m.streamSid).toBe(client.streamSid);
      expect(Buffer.from(m.media!.payload, 'base64')).toHaveLength(160);
    }
    // The reply was streamed and cut at sentence ends: one synthesis per sentence, the STT got the language hint.
    expect(speech.speeches.map((s) => s.input)).toEqual(
      expect.arrayContaining(['Sure, I can help with that today.', 'What is your order number please?']),
    );
    expect(speech.speeches.every((s) => s.response_format === 'pcm')).toBe(true);
    expect(llm.callsOf('reply').length).toBeGreaterThanOrEqual(2);
    expect(speech.transcriptions[0].language).toBe('en');
    await other.http.get(`/api/v1/conversations/${id}/messages`).expect(404);
  });

  it('barge-in: speech over the agent’s audio sends clear and stores the reply interrupted', async () => {
    speech.transcripts.push('Tell me everything', 'Stop, wait');
    speech.toneMsPerChar = 100; // long replies, still playing when the customer speaks
    const { id, client } = await connected();
    await waitFor(async () => (client.events('mark').length >= 1 ? true : undefined), 15_000, 'greeting');
    client.echoMarks = false; // the far end is still playing what it receives
    client.play('silence', 600);
    client.utter(400, 600);
    await waitFor(
      async () =>
        client.events('media').length > 0 && (await messagesOf(id)).length >= 3 ? true : undefined,
      15_000,
      'reply playing',
    );
    const before = client.events('clear').length;
    client.play('tone', 400);
    await waitFor(async () => (client.events('clear').length > before ? true : undefined), 10_000, 'clear');
    const replies = (await messagesOf(id)).filter((m) => m.sender === 'agent');
    await waitFor(
      async () => ((await messagesOf(id)).some((m) => m.interrupted === true) ? true : undefined),
      10_000,
      'interrupted',
    );
    expect(replies.length).toBeGreaterThanOrEqual(2);
    speech.toneMsPerChar = 10;
    client.play('silence', 600);
  });

  it('a wrong stream token closes the socket with 1008 and hangs the call up', async () => {
    const res = await t.http
      .post('/api/v1/call')
      .send({ agent_uuid: line.agentId, to: '+14155550151' })
      .expect(201);
    const id = res.body.data.uuid as string;
    const sid = (await waitFor(async () => (await callOf(id)).provider_call_id ?? undefined)) as string;
    await postSigned(app.url, `${PUBLIC}/hooks/v1/twilio/calls/${id}/status`, {
      CallSid: sid,
      CallStatus: 'ringing',
    }).expect(204);
    const client = await MediaClient.connect(app.url, id, 'not-the-token', sid);
    clients.push(client);
    await waitFor(async () => (client.closed ? true : undefined));
    expect(client.closeCode).toBe(1008);
    await waitFor(async () =>
      ['canceled', 'completed'].includes((await callOf(id)).status) ? true : undefined,
    );
    await waitFor(async () =>
      twilio.updates(sid).some((u) => u.form.Status === 'canceled') ? true : undefined,
    );
  });

  it('a stream whose start fails after its session opened (the greeting cannot be stored) closes with 1011 and lets the session go', async () => {
    const res = await t.http
      .post('/api/v1/call')
      .send({ agent_uuid: line.agentId, to: '+14155550152' })
      .expect(201);
    const id = res.body.data.uuid as string;
    const sid = (await waitFor(async () => (await callOf(id)).provider_call_id ?? undefined)) as string;
    // Closed by hand while the call rings: answering it then fails on the agent's first message.
    await t.http.post(`/api/v1/conversations/${id}/close`).expect(200);
    const twiml = String(twilio.dials().find((d) => String(d.form.Twiml).includes(id))!.form.Twiml);
    const client = await streamFrom(twiml, id, sid);
    await waitFor(async () => (client.closed ? true : undefined), 10_000, 'stream closed');
    expect(client.closeCode).toBe(1011);
    expect((await callOf(id)).status).toBe('in-progress');
    expect(app.get<MediaSessions>(MediaSessions).session(id)).toBeUndefined();
  });

  it('a guard end_conversation says its words on the stream, then hangs up through REST (agent_hangup)', async () => {
    const guarded = await twilioLine(t, { settings: { voice: { end_of_turn_silence_ms: 300 } } });
    await t.http
      .post(`/api/v1/agents/${guarded.agentId}/guard-rules`)
      .send({
        name: 'Stop',
        when_condition: 'The customer asks to stop calling',
        example_phrases: ['stop calling me'],
        then_action: 'end_conversation',
        say_before_end: 'Sorry to bother you, goodbye.',
      })
      .expect(201);
    llm.respond = (call) =>
      call.kind === 'classify'
        ? {
            content: JSON.stringify({
              scores: [{ id: JSON.parse(call.messages[1].content).candidates[0].id, score: 0.95 }],
            }),
          }
        : call.kind === 'reply'
          ? { content: REPLY }
          : defaultAnswer(call);
    speech.transcripts.push('stop calling me');
    const { id, sid, client } = await connected(guarded.agentId);
    await waitFor(async () => ((await callOf(id)).status === 'in-progress' ? true : undefined));
    client.play('silence', 600);
    client.utter(400, 600);
    const said = await agentMessage(id, 'Sorry to bother you, goodbye.');
    await markFor(client, said.uuid);
    await waitFor(async () => ((await callOf(id)).status === 'completed' ? true : undefined));
    expect((await callOf(id)).end_reason).toBe('agent_hangup');
    await waitFor(async () =>
      twilio.updates(sid).some((u) => u.form.Status === 'completed') ? true : undefined,
    );
    llm.respond = (call) => (call.kind === 'reply' ? { content: REPLY } : defaultAnswer(call));
  });

  it('a routing rule forwards with <Dial>; a <Dial> that fails reconnects the stream and says voice_on_error', async () => {
    const routed = await twilioLine(t, { settings: { voice: { end_of_turn_silence_ms: 300 } } });
    await t.http
      .post(`/api/v1/agents/${routed.agentId}/routing-rules`)
      .send({
        trigger_keyword: 'sales',
        detection_mode: 'exact',
        voice_response: 'Connecting you to sales now.',
        voice_on_error: 'Sales did not answer, I am still here.',
        destination_type: 'phone_number',
        destination: '+14155550177',
      })
      .expect(201);
    speech.transcripts.push('sales');
    const { id, sid, client } = await connected(routed.agentId);
    await waitFor(async () => ((await callOf(id)).status === 'in-progress' ? true : undefined));
    client.play('silence', 600);
    client.utter(400, 600);
    const update = await waitFor(async () =>
      twilio.updates(sid).find((u) => String(u.form.Twiml ?? '').includes('<Dial')),
    );
    const dialTwiml = String(update.form.Twiml);
    expect(dialTwiml).toContain('+14155550177</Number></Dial>');
    const action = /<Dial action="([^"]+)"/.exec(dialTwiml)![1].replace(/&amp;/g, '&');
    // Twilio ends the media stream when the call's TwiML changes; the call stays up.
    client.stop();
    await waitFor(async () => (client.closed ? true : undefined));
    expect((await callOf(id)).status).toBe('in-progress');
    const back = await postSigned(app.url, action, { CallSid: sid, DialCallStatus: 'no-answer' }).expect(200);
    expect(back.text).toContain(`/hooks/v1/twilio/media/${id}`);
    const again = await streamFrom(back.text, id, sid);
    const said = await agentMessage(id, 'Sales did not answer, I am still here.');
    await markFor(again, said.uuid);
    expect((await callOf(id)).handled_by).toBe('AI');
    expect((await messagesOf(id)).map((m) => m.content)).toContain('Connecting you to sales now.');
  });

  describe('with a second API process', () => {
    let b: ApiProcess;
    beforeAll(async () => {
      b = await startVoiceReplica(app, { twilio, llm, speech }, PUBLIC);
    }, 180_000);
    afterAll(async () => {
      await b?.stop();
    });

    it('a say posted to another process is spoken on the stream this process holds', async () => {
      const { id, client } = await connected();
      await waitFor(async () => ((await callOf(id)).status === 'in-progress' ? true : undefined));
      const res = await b
        .http(t.host, t.token)
        .post(`/api/v1/calls/action/${id}/say`)
        .send({ message: 'A message from the supervisor.' })
        .expect(200);
      expect(res.body.message).toBe('Say dispatched');
      const said = await agentMessage(id, 'A message from the supervisor.');
      await markFor(client, said.uuid);
      const mute = await b.http(t.host, t.token).post(`/api/v1/calls/action/${id}/mute`).send({}).expect(200);
      expect(mute.body.data.muted).toBe(true);
      const hang = await b
        .http(t.host, t.token)
        .post(`/api/v1/calls/action/${id}/hangup`)
        .send({})
        .expect(200);
      expect(hang.body.message).toBe('Hangup dispatched');
      expect((await callOf(id)).end_reason).toBe('api_hangup');
    });
  });
});
