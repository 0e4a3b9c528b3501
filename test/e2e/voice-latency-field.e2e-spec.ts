import { TurnLatencyService } from '@/modules/conversations/turn-latency.service';
import { sandboxDestination, sandboxLine } from '../factories/call.factory';
import { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { client, TestApp } from '../setup/test-app';
import { LlmServer } from '../support/llm-server';
import { waitFor } from '../support/wait';

/** The value of one sample of a Prometheus text page, or undefined when the series is absent. */
function sample(page: string, series: string): number | undefined {
  const line = page.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

interface MessageAnswer {
  uuid: string;
  sender: string;
  latency: Record<string, number | null> | null;
}

describe('voice turn latency on messages and in /metrics', () => {
  const suite = useTestApp({
    servers: { llm: () => LlmServer.start() },
    env: ({ llm }) => ({ LLM_BASE_URL: llm.url, LLM_MODEL: 'test-model', SANDBOX_ANSWER_DELAY_MS: '100' }),
    tenants: ['t', 'other'],
  });
  let app: TestApp;
  let t: TestTenant;
  let other: TestTenant;
  let latency: TurnLatencyService;
  let line: { agentId: string; numberId: string; number: string };

  const messagesOf = async (tenant: TestTenant, id: string) =>
    (await tenant.http.get(`/api/v1/conversations/${id}/messages?per_page=100`).expect(200)).body.data
      .items as MessageAnswer[];

  /** An answered sandbox call with one customer turn: the call's id and the customer's and agent's messages. */
  const callWithTurn = async () => {
    const placed = await t.http
      .post('/api/v1/call')
      .send({ agent_uuid: line.agentId, to: sandboxDestination() })
      .expect(201);
    const id = placed.body.data.uuid as string;
    await waitFor(async () => ((await messagesOf(t, id)).length ? true : undefined));
    const turn = await t.http
      .post(`/api/v1/calls/${id}/simulate`)
      .send({ action: 'say', text: 'Where is my order?' })
      .expect(200);
    return {
      id,
      said: turn.body.data.message as MessageAnswer,
      reply: turn.body.data.reply as MessageAnswer,
    };
  };

  beforeAll(async () => {
    ({ app, t, other } = suite);
    latency = app.get(TurnLatencyService);
    line = await sandboxLine(t, { settings: { voice: { first_message: 'Hello!' } } });
  });

  it("stores a reply's timing and answers it in the conversation's messages and GET /messages/{uuid}", async () => {
    const { id, said, reply } = await callWithTurn();
    expect(reply).toMatchObject({ sender: 'agent', latency: null });
    expect(said).toMatchObject({ sender: 'customer', latency: null });

    const stored = await latency.record(t.workspaceId, reply.uuid, {
      endpoint_ms: 212.6,
      stt_ms: 301,
      model_first_token_ms: 415,
      tts_first_audio_ms: null,
      voice_to_voice_ms: 1240,
    });
    expect(stored).toBe(true);
    const timing = {
      endpoint_ms: 213,
      stt_ms: 301,
      model_first_token_ms: 415,
      tts_first_audio_ms: null,
      voice_to_voice_ms: 1240,
    };

    const items = await messagesOf(t, id);
    expect(items.find((m) => m.uuid === reply.uuid)?.latency).toEqual(timing);
    for (const m of items.filter((m) => m.uuid !== reply.uuid)) expect(m.latency).toBeNull();
    expect((await t.http.get(`/api/v1/messages/${reply.uuid}`).expect(200)).body.data.latency).toEqual(
      timing,
    );
    expect((await t.http.get(`/api/v1/messages/${said.uuid}`).expect(200)).body.data.latency).toBeNull();
  });

  it("keeps absent, negative or non-numeric steps null; a customer's message takes no timing", async () => {
    const { said, reply } = await callWithTurn();
    const given = { voice_to_voice_ms: -5, stt_ms: Number.NaN, model_first_token_ms: '300' } as never;
    expect(await latency.record(t.workspaceId, reply.uuid, given)).toBe(true);
    expect((await t.http.get(`/api/v1/messages/${reply.uuid}`).expect(200)).body.data.latency).toEqual({
      endpoint_ms: null,
      stt_ms: null,
      model_first_token_ms: null,
      tts_first_audio_ms: null,
      voice_to_voice_ms: null,
    });
    expect(await latency.record(t.workspaceId, said.uuid, { voice_to_voice_ms: 900 })).toBe(false);
    expect((await t.http.get(`/api/v1/messages/${said.uuid}`).expect(200)).body.data.latency).toBeNull();
    // A malformed id is logged and answered false, never thrown at the caller.
    await expect(latency.record(t.workspaceId, 'not-a-uuid', { voice_to_voice_ms: 900 })).resolves.toBe(
      false,
    );
  });

  it('a text conversation answers latency null and takes none', async () => {
    const opened = await t.http
      .post('/api/v1/conversations')
      .send({ agent_uuid: line.agentId, channel: 'chat' })
      .expect(201);
    const id = opened.body.data.uuid as string;
    const turn = await t.http
      .post(`/api/v1/conversations/${id}/messages`)
      .send({ content: 'Hi' })
      .expect(201);
    const reply = turn.body.data.reply as MessageAnswer;
    expect(reply).toMatchObject({ sender: 'agent', latency: null });
    expect(await latency.record(t.workspaceId, reply.uuid, { voice_to_voice_ms: 800 })).toBe(false);
    for (const m of await messagesOf(t, id)) expect(m.latency).toBeNull();
    expect((await t.http.get(`/api/v1/messages/${reply.uuid}`).expect(200)).body.data.latency).toBeNull();
  });

  it("another workspace neither reads a reply's timing nor sets it", async () => {
    const { id, reply } = await callWithTurn();
    expect(await latency.record(other.workspaceId, reply.uuid, { voice_to_voice_ms: 700 })).toBe(false);
    expect((await t.http.get(`/api/v1/messages/${reply.uuid}`).expect(200)).body.data.latency).toBeNull();
    await latency.record(t.workspaceId, reply.uuid, { voice_to_voice_ms: 700 });
    const stranger = await other.http.get(`/api/v1/messages/${reply.uuid}`).expect(404);
    expect(JSON.stringify(stranger.body)).not.toContain('voice_to_voice_ms');
    await other.http.get(`/api/v1/conversations/${id}/messages`).expect(404);
  });

  it("observes the agent's voice-to-voice and first-token histograms in /metrics", async () => {
    const { reply } = await callWithTurn();
    const scrape = async () => (await app.internal().get('/metrics').expect(200)).text;
    const agent = `agent_id="${line.agentId}"`;
    const series = (page: string, name: string, le?: string) =>
      sample(page, `${name}${le ? `_bucket{le="${le}",${agent}}` : `_count{${agent}}`}`) ?? 0;
    const before = await scrape();
    await latency.record(t.workspaceId, reply.uuid, { voice_to_voice_ms: 850, model_first_token_ms: 320 });
    const page = await scrape();
    const v2v = 'cap_voice_to_voice_seconds';
    expect(series(page, v2v) - series(before, v2v)).toBe(1);
    expect(series(page, v2v, '1') - series(before, v2v, '1')).toBe(1);
    expect(series(page, v2v, '0.8') - series(before, v2v, '0.8')).toBe(0);
    const first = 'cap_voice_model_first_token_seconds';
    expect(series(page, first) - series(before, first)).toBe(1);
    expect(series(page, first, '0.4') - series(before, first, '0.4')).toBe(1);
    expect(series(page, first, '0.3') - series(before, first, '0.3')).toBe(0);
    expect(page).toContain('# TYPE cap_voice_to_voice_seconds histogram');
    // The scrape is the admin's: a tenant's token is refused.
    await client(app.url, t.host, t.token).get('/metrics').expect(401);
  });

  it('documents latency in the OpenAPI message answers with each field described and an example', async () => {
    const doc = (await app.http('any.example.test').get('/docs/openapi.json').expect(200)).body;
    const schema = doc.components.schemas.MessageLatencyResponse;
    expect(Object.keys(schema.properties)).toEqual([
      'endpoint_ms',
      'stt_ms',
      'model_first_token_ms',
      'tts_first_audio_ms',
      'voice_to_voice_ms',
    ]);
    for (const p of Object.values<any>(schema.properties))
      expect(p).toMatchObject({
        type: 'integer',
        nullable: true,
        description: expect.any(String),
        example: expect.any(Number),
      });
    for (const name of ['ProviderMessageResponse', 'MessageResponse']) {
      const field = doc.components.schemas[name].properties.latency;
      expect(JSON.stringify(field)).toContain('#/components/schemas/MessageLatencyResponse');
      expect(field).toMatchObject({ nullable: true, description: expect.any(String) });
      expect(field.example).toMatchObject({ voice_to_voice_ms: expect.any(Number) });
    }
  });
});
