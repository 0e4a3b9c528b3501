import WebSocket from 'ws';
import { TestTenant } from '../factories/workspace.factory';
import { twilioLine } from '../factories/twilio.factory';
import { useTestApp } from '../setup/suite';
import { TestApp } from '../setup/test-app';
import type { ApiProcess } from '../support/api-process-client';
import { defaultAnswer, LlmServer } from '../support/llm-server';
import { MediaClient } from '../support/media-client';
import { SpeechServer } from '../support/speech-server';
import { TwilioServer } from '../support/twilio-server';
import { startVoiceReplica, voiceEnv } from '../support/voice-env';
import { waitFor } from '../support/wait';

const PUBLIC = 'https://voice-contract.example.test';
const REPLY = 'Thanks, noted.';

/** The HTTP answer to a WebSocket handshake on `path`: its status and JSON body, or how the connection ended. */
function handshake(
  appUrl: string,
  path: string,
): Promise<{ status: number; body: unknown } | { dropped: string }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${appUrl.replace(/^https/, 'wss')}${path}`, { rejectUnauthorized: false });
    ws.on('unexpected-response', (_req, res) => {
      let raw = '';
      res.on('data', (c: Buffer) => (raw += c.toString()));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: raw ? JSON.parse(raw) : null });
        ws.terminate();
      });
    });
    ws.on('open', () => {
      resolve({ dropped: 'opened' });
      ws.terminate();
    });
    ws.on('error', (err) => resolve({ dropped: err.message }));
  });
}

/**
 * Twilio calls whose media stream this process holds while the timers run on a worker process (a replica of its
 * own): keypresses, the silence goodbye and the stream's handshake, as the contract (10.2, 10.3) words them.
 */
describe('voice: keypresses, the silence goodbye and the media stream handshake', () => {
  afterAll(() => clients.forEach((c) => c.close()));
  const suite = useTestApp({
    servers: {
      twilio: () => TwilioServer.start(),
      llm: () => LlmServer.start(),
      speech: () => SpeechServer.start(),
    },
    env: (servers) => ({ ...voiceEnv(servers, PUBLIC), RUN_WORKERS: 'false' }),
    tenants: ['t'],
  });
  let twilio: TwilioServer;
  let llm: LlmServer;
  let speech: SpeechServer;
  let app: TestApp;
  let t: TestTenant;
  let worker: ApiProcess;
  const clients: MediaClient[] = [];

  const callOf = async (id: string) => (await t.http.get(`/api/v1/calls/${id}`).expect(200)).body.data;
  const messagesOf = async (id: string) =>
    (await t.http.get(`/api/v1/conversations/${id}/messages?per_page=100`).expect(200)).body.data.items as {
      uuid: string;
      sender: string;
      content: string;
      message_type: string;
    }[];
  /** Places a call on the agent and connects a Media Streams client with the token of the dialled TwiML. */
  const connected = async (agentId: string, to: string) => {
    const res = await t.http.post('/api/v1/call').send({ agent_uuid: agentId, to }).expect(201);
    const id = res.body.data.uuid as string;
    const sid = (await waitFor(async () => (await callOf(id)).provider_call_id ?? undefined)) as string;
    const twiml = String(twilio.dials().find((d) => String(d.form.Twiml).includes(id))!.form.Twiml);
    const client = await MediaClient.fromTwiml(app.url, twiml, id, sid);
    clients.push(client);
    await waitFor(async () => ((await callOf(id)).status === 'in-progress' ? true : undefined));
    return { id, sid, client };
  };

  beforeAll(async () => {
    ({ twilio, llm, speech, app, t } = suite);
    llm.respond = (call) => (call.kind === 'reply' ? { content: REPLY } : defaultAnswer(call));
    worker = await startVoiceReplica(app, { twilio, llm, speech }, PUBLIC);
  }, 180_000);
  afterAll(async () => {
    await worker?.stop();
  });

  it('keys pressed close together are one customer turn, given to the model as (pressed 1 2)', async () => {
    const line = await twilioLine(t, { settings: { voice: { silence_timeout_seconds: 120 } } });
    const { id, client } = await connected(line.agentId, '+14155550161');
    const repliesBefore = llm.callsOf('reply').length;
    client.dtmf('1');
    client.dtmf('2');
    const reply = await waitFor(
      async () => (await messagesOf(id)).find((m) => m.sender === 'agent' && m.content === REPLY),
      15_000,
      'reply to the keypresses',
    );
    const customer = (await messagesOf(id)).filter((m) => m.sender === 'customer');
    expect(customer.map((m) => [m.content, m.message_type])).toEqual([['(pressed 1 2)', 'dtmf']]);
    const prompts = llm.callsOf('reply').slice(repliesBefore);
    expect(prompts).toHaveLength(1);
    expect(prompts[0].messages.at(-1)).toMatchObject({ role: 'user', content: '(pressed 1 2)' });
    await waitFor(async () =>
      client.events('mark').some((m) => m.mark!.name === reply.uuid) ? true : undefined,
    );

    // A key pressed well after the others is a turn of its own.
    await new Promise((r) => setTimeout(r, 200));
    client.dtmf('#');
    await waitFor(async () =>
      (await messagesOf(id)).some((m) => m.content === '(pressed #)') ? true : undefined,
    );
  });

  it('after the silence timeout the end_call_message is spoken, and the call hangs up once its mark comes back', async () => {
    const line = await twilioLine(t, {
      settings: { voice: { silence_timeout_seconds: 1, end_call_message: 'Nobody there? Goodbye then.' } },
    });
    const { id, sid, client } = await connected(line.agentId, '+14155550162');
    client.echoMarks = false; // the far end is still playing what it receives
    const goodbye = await waitFor(
      async () => (await messagesOf(id)).find((m) => m.content === 'Nobody there? Goodbye then.'),
      15_000,
      'the goodbye stored',
    );
    await waitFor(
      async () => (client.events('mark').some((m) => m.mark!.name === goodbye.uuid) ? true : undefined),
      15_000,
      'the goodbye played then marked',
    );
    expect(speech.speeches.map((s) => s.input)).toEqual(
      expect.arrayContaining(['Nobody there?', 'Goodbye then.']),
    );
    const order = client.received.map((m) => m.event);
    expect(order.slice(0, order.indexOf('mark'))).toContain('media');
    // Not hung up while the goodbye is still playing.
    await new Promise((r) => setTimeout(r, 800));
    expect(twilio.updates(sid).some((u) => u.form.Status === 'completed')).toBe(false);
    expect((await callOf(id)).status).toBe('in-progress');
    client.send({ event: 'mark', streamSid: client.streamSid, mark: { name: goodbye.uuid } });
    await waitFor(async () =>
      twilio.updates(sid).some((u) => u.form.Status === 'completed') ? true : undefined,
    );
    const ended = await callOf(id);
    expect(ended.status).toBe('completed');
    expect(ended.end_reason).toBe('silence_timeout');
  });

  it('a handshake the stream cannot take is answered in HTTP, never dropped', async () => {
    expect(await handshake(app.url, '/hooks/v1/twilio/media/not-a-uuid')).toEqual({
      status: 422,
      body: {
        success: false,
        message: 'uuid must be a UUID',
        error: { code: 'INVALID_UUID', details: 'uuid must be a UUID', field: 'uuid' },
      },
    });
    expect(
      await handshake(app.url, '/hooks/v1/twilio/media/------------------------------------'),
    ).toMatchObject({
      status: 422,
    });
    expect(await handshake(app.url, '/hooks/v1/twilio/media/0190b8a0-0000-7000-8000-000000000000')).toEqual({
      status: 404,
      body: {
        success: false,
        message: 'Call not found',
        error: { code: 'RESOURCE_NOT_FOUND', details: 'Call not found' },
      },
    });
    expect(await handshake(app.url, '/api/v1/calls')).toMatchObject({
      status: 404,
      body: { error: { code: 'ENDPOINT_NOT_FOUND' } },
    });
  });
});
