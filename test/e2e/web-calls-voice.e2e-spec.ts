import { createAgentId } from '../factories/agent.factory';
import { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { defaultAnswer, LlmServer } from '../support/llm-server';
import { SpeechServer } from '../support/speech-server';
import { waitFor } from '../support/wait';
import { WebCallClient, webCallEnv } from '../support/web-call-client';
import { WebhookReceiver } from '../support/webhook-receiver';

const PUBLIC = 'https://calls.example.test';

type Exec = { uuid: string; status: string };

describe('web calls count as voice calls: call analytics and flow triggers', () => {
  const clients: WebCallClient[] = [];
  afterAll(() => clients.forEach((c) => c.close()));
  const suite = useTestApp({
    servers: {
      llm: () => LlmServer.start(),
      speech: () => SpeechServer.start(),
      hooks: () => WebhookReceiver.start(),
    },
    env: (servers) => ({ ...webCallEnv(servers, PUBLIC), LLM_MODEL: 'test-model' }),
    tenants: ['t', 'a'],
  });

  beforeAll(() => {
    suite.llm.respond = (call) =>
      call.kind === 'reply' ? { content: 'Sure, what is the order number?' } : defaultAnswer(call);
  });
  /** An agent that greets and takes a turn after 300 ms of silence. */
  const voiceAgent = (tenant: TestTenant) =>
    createAgentId(tenant, {
      language: 'en',
      settings: { voice: { first_message: 'Hello.', end_of_turn_silence_ms: 300 } },
    });

  const callOf = async (tenant: TestTenant, id: string) =>
    (await tenant.http.get(`/api/v1/calls/${id}`).expect(200)).body.data;

  /**
   * A web call of `agentId` taken by a socket client: started, one utterance of the customer answered by the agent,
   * then hung up by the page; answers the ended call.
   */
  const webCallTaken = async (tenant: TestTenant, agentId: string) => {
    const res = await tenant.http.post('/api/v1/web-calls').send({ agent_uuid: agentId }).expect(201);
    const id = res.body.data.call.uuid as string;
    const url = (res.body.data.websocket_url as string).replace(
      PUBLIC.replace('https', 'wss'),
      suite.app.url.replace('https', 'wss'),
    );
    suite.speech.transcripts.push('I would like to check my order');
    const client = await WebCallClient.connect(url);
    clients.push(client);
    client.start();
    await waitFor(async () => (client.events('mark').length ? true : undefined), 10_000, 'greeting');
    client.play('silence', 400);
    client.utter(500, 700);
    await waitFor(async () => (client.events('mark').length >= 2 ? true : undefined), 15_000, 'the reply');
    client.hangUp();
    await client.whenClosed();
    return waitFor(
      async () => {
        const call = await callOf(tenant, id);
        return call.status === 'completed' ? call : undefined;
      },
      15_000,
      'call completed',
    );
  };

  it('GET /analytics/calls counts a web call: totals, a `web` bucket, the channel filter', async () => {
    const { a } = suite;
    const agentId = await voiceAgent(a);
    const call = await webCallTaken(a, agentId);
    expect(call).toMatchObject({ communication: 'web', direction: 'Inbound', end_reason: 'customer_hangup' });

    const res = await a.http.get('/api/v1/analytics/calls').expect(200);
    const { totals, by_channel } = res.body.data;
    expect(totals).toMatchObject({
      count: 1,
      inbound: 1,
      outbound: 0,
      answered: 1,
      total_duration_seconds: call.duration,
    });
    expect(by_channel).toEqual([
      expect.objectContaining({ channel: 'web', channel_label: 'Web call', count: 1, answered: 1 }),
    ]);
    const web = await a.http.get('/api/v1/analytics/calls?channel=web').expect(200);
    expect(web.body.data.totals).toMatchObject({ count: 1, answered: 1 });
    const phone = await a.http.get('/api/v1/analytics/calls?channel=phone,whatsapp_call').expect(200);
    expect(phone.body.data.totals).toMatchObject({ count: 0 });
  });

  it("flow triggers: inbound_call and call_ended fire for a web call; message_received never takes a call's words", async () => {
    const { t, hooks } = suite;
    const agentId = await voiceAgent(t);
    const deployed = async (trigger_key: string, path: string) => {
      const f = (await t.http.post('/api/v1/flows').send({ name: trigger_key }).expect(201)).body.data;
      await t.http
        .post(`/api/v1/flow/${f.uuid}/steps`)
        .send({ kind: 'trigger', trigger_key, config: { agent_uuid: agentId } })
        .expect(201);
      await t.http
        .post(`/api/v1/flow/${f.uuid}/steps`)
        .send({ kind: 'action', action_key: 'send_webhook', config: { url: hooks.url(path), body: {} } })
        .expect(201);
      await t.http.post(`/api/v1/flow/${f.uuid}/deploy`).expect(200);
      return f.uuid as string;
    };
    const list = async (flow: string) =>
      (await t.http.get(`/api/v1/flow/${flow}/executions?per_page=100`).expect(200)).body.data
        .items as Exec[];
    const executed = (flow: string) =>
      waitFor(
        async () => {
          const done = (await list(flow)).filter((e) => ['succeeded', 'failed'].includes(e.status));
          return done.length ? done : undefined;
        },
        20_000,
        'an execution ended',
      );
    const trigger = async (flow: string, id: string) =>
      (await t.http.get(`/api/v1/flow/${flow}/executions/${id}`).expect(200)).body.data.trigger;

    // A call is no message channel: message_received's `channels` cannot name one.
    const other = (await t.http.post('/api/v1/flows').send({ name: 'web words' }).expect(201)).body.data.uuid;
    const refused = await t.http
      .post(`/api/v1/flow/${other}/steps`)
      .send({ kind: 'trigger', trigger_key: 'message_received', config: { channels: ['web'] } })
      .expect(422);
    expect(refused.body.error).toMatchObject({
      code: 'INVALID_FORMAT',
      field: 'config.channels',
      details: 'config.channels must be a list of sms, whatsapp, messenger, instagram, chat',
    });

    const inbound = await deployed('inbound_call', '/inbound');
    const ended = await deployed('call_ended', '/ended');
    const received = await deployed('message_received', '/received');

    const call = await webCallTaken(t, agentId);
    const messages = (
      await t.http.get(`/api/v1/conversations/${call.uuid}/messages?per_page=100`).expect(200)
    ).body.data.items as { sender: string; direction: string }[];
    // The customer's words are an inbound message of the call, as a text message would be.
    expect(messages.map((m) => [m.sender, m.direction])).toEqual([
      ['agent', 'outbound'],
      ['customer', 'inbound'],
      ['agent', 'outbound'],
    ]);

    const [ring] = await executed(inbound);
    expect((await trigger(inbound, ring.uuid)).data).toMatchObject({
      status: 'ringing',
      call: { uuid: call.uuid },
    });
    const [end] = await executed(ended);
    expect((await trigger(ended, end.uuid)).data).toMatchObject({
      status: 'completed',
      call: { uuid: call.uuid },
    });

    // A chat message after the call fires message_received: the call's own words, earlier events, fired nothing.
    const chat = (
      await t.http.post('/api/v1/conversations').send({ agent_uuid: agentId, channel: 'chat' }).expect(201)
    ).body.data.uuid as string;
    await t.http.post(`/api/v1/conversations/${chat}/messages`).send({ content: 'Hello there' }).expect(201);
    const runs = await executed(received);
    expect(runs).toHaveLength(1);
    expect((await trigger(received, runs[0].uuid)).data).toMatchObject({ conversation_uuid: chat });
  });
});
