import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sandboxDestination, sandboxLine } from '../factories/call.factory';
import { twilioLine } from '../factories/twilio.factory';
import { createAgent } from '../factories/agent.factory';
import { createWebhook } from '../factories/webhook.factory';
import { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { ApiProcess, startApiProcess } from '../support/api-process-client';
import { defaultAnswer, LlmServer } from '../support/llm-server';
import { MediaClient } from '../support/media-client';
import { ExportedSpan, OtlpReceiver } from '../support/otlp-receiver';
import { SpeechServer } from '../support/speech-server';
import { postSigned, TWILIO_TOKEN, TwilioServer } from '../support/twilio-server';
import { voiceEnv } from '../support/voice-env';
import { waitFor } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

const PUBLIC = 'https://voice.example.test';
const SECRET = 'whsec_dHJhY2luZy1zZWNyZXQtdmFsdWU=';
const SAID = ['Where is my parcel number 4711?', 'It was due on Tuesday afternoon.'];
const GREETING = 'Hello, thanks for calling the tracing line.';
const VOICE_REPLY = 'Sure, I can help with that today. What is your order number please?';
const SMS_TEXT = 'Can I move my appointment to Friday?';
const TRANSCRIPT = 'I need help with my order please';
const SERVER = 2;

/** A sandbox number bound to an agent for SMS. */
let numberSeq = 0;
async function smsLine(t: TestTenant, agentId: string): Promise<string> {
  numberSeq += 1;
  const number = `+1628${500 + ((process.pid * 13 + numberSeq) % 400)}${String((numberSeq * 41) % 10000).padStart(4, '0')}`;
  const created = await t.http
    .post('/api/v1/phone-numbers')
    .send({ number, provider: 'sandbox' })
    .expect(201);
  await t.http
    .post(`/api/v1/agents/${agentId}/phone-numbers`)
    .send({ phone_number_uuid: created.body.data.uuid, channels: ['sms'] })
    .expect(201);
  return number;
}

/**
 * Tracing runs in a replica process of its own (the SDK must start before HTTP, pg and ioredis load): the suite's
 * app, on a database of its own and without workers, only builds the tenants; the replica takes every request and
 * runs every job, exporting to a local OTLP/HTTP receiver.
 */
describe('tracing: OpenTelemetry spans exported over OTLP/HTTP', () => {
  // Declared before the suite start so the replicas and media clients stop before the app closes.
  afterAll(async () => {
    clients.forEach((c) => c.close());
    await off?.kill();
    await traced?.stop();
    await leftOut?.stop();
  });
  const suite = useTestApp({
    servers: {
      otlp: () => OtlpReceiver.start(),
      hooks: () => WebhookReceiver.start(),
      twilio: () => TwilioServer.start(),
      llm: () => LlmServer.start(),
      speech: () => SpeechServer.start(),
    },
    database: 'tracing',
    env: (servers) => ({ ...voiceEnv(servers, PUBLIC), LLM_MODEL: 'test-model', RUN_WORKERS: 'false' }),
    tenants: ['t'],
  });
  let t: TestTenant;
  let otlp: OtlpReceiver;
  let hooks: WebhookReceiver;
  let traced: ApiProcess | undefined;
  let off: ApiProcess | undefined;
  let leftOut: ApiProcess | undefined;
  let agentId: string;
  const clients: MediaClient[] = [];

  const replicaEnv = (extra: Record<string, string> = {}) => ({
    DATABASE_URL: suite.databaseUrl,
    REDIS_PREFIX: suite.app.config.redis.prefix,
    STORAGE_DIR: suite.app.config.storageDir,
    ENCRYPTION_KEY: suite.app.config.auth.encryptionKey!,
    ...voiceEnv(suite, PUBLIC),
    LLM_MODEL: 'test-model',
    SANDBOX_ANSWER_DELAY_MS: '100',
    ...extra,
  });
  /** The replica with tracing on, started once (after the one without). */
  const tracedReplica = async (): Promise<ApiProcess> =>
    (traced ??= await startApiProcess(
      replicaEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_SERVICE_NAME: 'agent-platform-test',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        LOG_LEVEL: 'info',
      }),
      { output: true },
    ));
  const spanWhere = (what: string, check: (s: ExportedSpan) => boolean, timeoutMs = 15_000) =>
    waitFor(async () => otlp.spans.find(check), timeoutMs, what);
  /** The database a span's statement or command went to (the current attribute, or the one before it). */
  const dbSystem = (s: ExportedSpan) => s.attributes['db.system.name'] ?? s.attributes['db.system'];
  const deliveriesOf = (traceId: string) =>
    otlp.trace(traceId).filter((s) => s.name === 'job webhooks:deliver');
  /** An inbound SMS simulated on a replica: the reply's and the conversation's ids. */
  const inboundSms = async (replica: ApiProcess, from: string) => {
    suite.llm.respond = defaultAnswer;
    const to = await smsLine(t, agentId);
    const res = await replica
      .http(t.host, t.token)
      .post('/api/v1/sms/simulate-inbound')
      .send({ to, from: sandboxDestination(from), body: SMS_TEXT })
      .expect(201);
    return {
      replyId: res.body.data.reply.uuid as string,
      conversation: res.body.data.conversation.uuid as string,
    };
  };
  /** The replica's log lines once `until` holds for one of them. */
  const logLinesOnce = (replica: ApiProcess, until: (line: Record<string, any>) => boolean) =>
    waitFor(async () => {
      const parsed = replica
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, any>);
      return parsed.some(until) ? parsed : undefined;
    });
  /** Whether a log line is about the sandbox's status job of a message. */
  const statusJobOf = (messageId: string) => (l: Record<string, any>) =>
    l.job === 'sandbox-status' && String(l.jobId).includes(messageId);

  beforeAll(async () => {
    ({ t, otlp, hooks } = suite);
    agentId = (await createAgent(t)).agent_uuid as string;
    await createWebhook(t, {
      url: hooks.url('/events'),
      events: ['conversation_update', 'conversation_status', 'message_status'],
      secret_key: SECRET,
    });
  });

  it('without OTEL_EXPORTER_OTLP_ENDPOINT the SDK is never loaded and nothing is exported', async () => {
    // Every OTEL_* variable empty, as docker/compose.yaml passes them when the host sets none.
    const compose = readFileSync(join(__dirname, '../../docker/compose.yaml'), 'utf8');
    const empty = [...compose.matchAll(/^ +(OTEL_[A-Z_]+): \$\{\1:-\}$/gm)].map((m) => [m[1], '']);
    expect(empty.length).toBeGreaterThan(5);
    off = await startApiProcess(replicaEnv(Object.fromEntries(empty)));
    expect(off.tracing).toBe(false);
    const to = await smsLine(t, agentId);
    const res = await off
      .http(t.host, t.token)
      .post('/api/v1/sms/simulate-inbound')
      .send({ to, from: sandboxDestination('2222'), body: 'Hello there' })
      .expect(201);
    const conversation = res.body.data.conversation.uuid as string;
    // Its webhooks went out (jobs ran), and nothing reached the receiver.
    await waitFor(
      async () => (hooks.at('/events').some((r) => r.body.includes(conversation)) ? true : undefined),
      15_000,
      'webhook of the untraced replica',
    );
    await off.stop();
    off = undefined;
    expect(otlp.bodies).toEqual([]);
    expect(otlp.refused).toEqual([]);
  }, 120_000);

  it('a sandbox call with two turns is one trace: the call, its turns with the model, and the webhooks they caused', async () => {
    const replica = await tracedReplica();
    expect(replica.tracing).toBe(true);
    const api = replica.http(t.host, t.token);
    const line = await sandboxLine(t, { settings: { voice: { first_message: GREETING } } });
    const placed = await api
      .post('/api/v1/call')
      .send({ agent_uuid: line.agentId, to: sandboxDestination() })
      .expect(201);
    const id = placed.body.data.uuid as string;
    await waitFor(async () => {
      const messages = (await api.get(`/api/v1/conversations/${id}/messages`).expect(200)).body.data.items;
      return messages.length ? true : undefined;
    });
    for (const text of SAID)
      await api.post(`/api/v1/calls/${id}/simulate`).send({ action: 'say', text }).expect(200);
    await api.post(`/api/v1/calls/${id}/simulate`).send({ action: 'hangup' }).expect(200);

    // The call's trace id is its uuid; its root span runs from placement to the end.
    const traceId = id.replace(/-/g, '');
    const root = await spanWhere('call span', (s) => s.traceId === traceId && s.name === 'call');
    expect(root.parentSpanId).toBe('');
    expect(root.attributes).toMatchObject({
      'call.id': id,
      'conversation.id': id,
      'workspace.id': t.workspaceId,
      'agent.id': line.agentId,
      'call.status': 'completed',
      'call.end_reason': 'customer_hangup',
      'call.simulation': true,
    });
    expect(root.end).toBeGreaterThan(root.start);
    expect(root.resource).toMatchObject({
      'service.name': 'agent-platform-test',
      'deployment.environment': 'test',
    });

    // Two turns under it, each linked to the request that brought it, each with its model call.
    const turns = otlp.trace(traceId).filter((s) => s.name === 'turn');
    expect(turns).toHaveLength(2);
    for (const turn of turns) {
      expect(turn.parentSpanId).toBe(root.spanId);
      expect(turn.attributes).toMatchObject({
        'workspace.id': t.workspaceId,
        'call.id': id,
        'conversation.id': id,
        'agent.id': line.agentId,
        'turn.replied': true,
      });
      expect(turn.links).toHaveLength(1);
      const request = otlp.spans.find((s) => s.spanId === turn.links[0].spanId)!;
      expect(request).toMatchObject({ kind: SERVER, name: 'POST /api/v1/calls/:uuid/simulate' });
      expect(request.attributes['workspace.id']).toBe(t.workspaceId);
      const llm = otlp.children(turn).find((s) => s.name === 'llm')!;
      expect(llm.attributes).toMatchObject({ 'llm.streamed': false, 'gen_ai.response.model': 'test-model' });
      expect(llm.attributes['llm.first_token_ms']).toEqual(expect.any(Number));
      expect(llm.start).toBeGreaterThanOrEqual(turn.start);
      expect(llm.end).toBeLessThanOrEqual(turn.end);
    }

    // The webhooks of the turns' messages: a delivery job continuing the turn, its signed POST inside it.
    const deliveries = await waitFor(
      async () => {
        const found = deliveriesOf(traceId).filter((d) => turns.some((x) => x.spanId === d.parentSpanId));
        return found.length >= 4 ? found : undefined;
      },
      20_000,
      'delivery spans',
    );
    for (const d of deliveries) {
      expect(d.attributes).toMatchObject({ 'workspace.id': t.workspaceId, 'messaging.system': 'bull' });
      const sent = await spanWhere(
        'webhook span',
        (s) => s.parentSpanId === d.spanId && s.name === 'webhook',
      );
      expect(sent.attributes).toMatchObject({ 'http.response.status_code': 200 });
      expect(sent.traceId).toBe(traceId);
    }
  }, 120_000);

  it('a Twilio media stream turn is timed inside its turn: endpointing, speech to text, the model, speech', async () => {
    const replica = await tracedReplica();
    const api = replica.http(t.host, t.token);
    const { twilio, llm, speech } = suite;
    llm.respond = (call) => (call.kind === 'reply' ? { content: VOICE_REPLY } : defaultAnswer(call));
    speech.transcripts.push(TRANSCRIPT);
    const line = await twilioLine(t, {
      language: 'en',
      settings: { voice: { first_message: GREETING, end_of_turn_silence_ms: 300 } },
    });
    const placed = await api
      .post('/api/v1/call')
      .send({ agent_uuid: line.agentId, to: '+14155550150' })
      .expect(201);
    const id = placed.body.data.uuid as string;
    const callOf = async () => (await api.get(`/api/v1/calls/${id}`).expect(200)).body.data;
    const sid = (await waitFor(async () => (await callOf()).provider_call_id ?? undefined)) as string;
    const twiml = String(twilio.dials().find((d) => String(d.form.Twiml).includes(id))!.form.Twiml);
    const client = await MediaClient.fromTwiml(replica.url, twiml, id, sid);
    clients.push(client);
    await waitFor(async () => (client.events('mark').length >= 1 ? true : undefined), 15_000, 'greeting');
    client.play('silence', 600);
    client.utter(400, 600);
    await waitFor(async () => (client.events('mark').length >= 2 ? true : undefined), 15_000, 'reply');
    await postSigned(replica.url, `${PUBLIC}/hooks/v1/twilio/calls/${id}/status`, {
      CallSid: sid,
      CallStatus: 'completed',
      CallDuration: '3',
    }).expect(204);

    const traceId = id.replace(/-/g, '');
    const root = await spanWhere('call span', (s) => s.traceId === traceId && s.name === 'call');
    expect(root.attributes).toMatchObject({
      'call.id': id,
      'call.provider': 'twilio',
      'call.simulation': false,
    });
    const turn = otlp
      .trace(traceId)
      .find((s) => s.name === 'turn' && s.attributes['turn.source'] === 'voice')!;
    expect(turn.parentSpanId).toBe(root.spanId);
    expect(turn.attributes).toMatchObject({ 'call.id': id, 'agent.id': line.agentId, 'turn.replied': true });
    const steps = otlp.children(turn);
    const step = (name: string) => steps.find((s) => s.name === name)!;
    expect(steps.map((s) => s.name)).toEqual(expect.arrayContaining(['endpointing', 'stt', 'llm', 'tts']));
    expect(step('endpointing').attributes).toMatchObject({ 'endpointing.silence_ms': 300 });
    expect(step('stt').attributes).toMatchObject({
      'stt.language': 'en',
      'stt.chars': TRANSCRIPT.length,
      'stt.audio_bytes': expect.any(Number),
    });
    expect(step('llm').attributes).toMatchObject({ 'llm.streamed': true });
    expect(step('llm').attributes['llm.first_token_ms']).toEqual(expect.any(Number));
    const tts = steps.filter((s) => s.name === 'tts');
    expect(tts.length).toBeGreaterThanOrEqual(2); // one a sentence
    for (const s of tts) expect(s.attributes['tts.first_audio_ms']).toEqual(expect.any(Number));
    expect(step('stt').end).toBeLessThanOrEqual(step('llm').start);
  }, 120_000);

  it("an inbound SMS's request, its reply's status jobs and the webhooks it caused share one trace; logs carry its id", async () => {
    const replica = await tracedReplica();
    const { replyId, conversation } = await inboundSms(replica, '3333');

    const request = await spanWhere(
      'inbound request span',
      (s) => s.kind === SERVER && s.name === 'POST /api/v1/sms/simulate-inbound',
    );
    const traceId = request.traceId;
    const turn = await spanWhere(
      'turn span',
      (s) => s.name === 'turn' && s.attributes['conversation.id'] === conversation,
    );
    expect(turn.traceId).toBe(traceId);
    expect(turn.attributes).toMatchObject({ 'workspace.id': t.workspaceId, 'agent.id': agentId });
    expect(turn.attributes['call.id']).toBeUndefined();
    // The statements and the Redis commands made under it are in the trace (the PostgreSQL and ioredis
    // instrumentations; those made where no span is current go round them).
    await spanWhere('statement span', (s) => s.traceId === traceId && dbSystem(s) === 'postgresql');
    await spanWhere('Redis command span', (s) => s.traceId === traceId && dbSystem(s) === 'redis');
    // Across Bull: the sandbox's delivery status jobs of the reply continue the request's trace, and so do the
    // webhook deliveries (of the messages, and of the statuses those jobs moved).
    const status = await spanWhere(
      'status job span',
      (s) => s.name === 'job messaging:sandbox-status' && s.attributes['message.id'] === replyId,
    );
    expect(status.traceId).toBe(traceId);
    expect(status.attributes).toMatchObject({
      'messaging.destination.name': 'messaging',
      'workspace.id': t.workspaceId,
      'job.attempt': 1,
    });
    const delivered = await waitFor(
      async () => (deliveriesOf(traceId).length >= 2 ? deliveriesOf(traceId) : undefined),
      20_000,
      'deliveries in the trace',
    );
    for (const d of delivered)
      await spanWhere('webhook span', (s) => s.traceId === traceId && s.parentSpanId === d.spanId);

    // The request's log line and the job lines carry the trace id.
    const ofReply = statusJobOf(replyId);
    const lines = await logLinesOnce(
      replica,
      (l) => l.msg === 'job finished' && ofReply(l) && l.trace_id === traceId,
    );
    const requestLine = lines.find(
      (l) => l.msg === 'request completed' && l.req?.url === '/api/v1/sms/simulate-inbound',
    );
    expect(requestLine?.trace_id).toBe(traceId);
    expect(lines.find((l) => l.msg === 'job started' && ofReply(l))?.trace_id).toBe(traceId);
  }, 120_000);

  it('exports neither secrets nor what customers and agents said', async () => {
    await tracedReplica();
    await waitFor(async () => (otlp.bodies.length ? true : undefined));
    const exported = otlp.bodies.join('\n');
    const forbidden = [
      ...SAID,
      GREETING,
      VOICE_REPLY.slice(0, 20),
      'Hello from the model',
      SMS_TEXT,
      TRANSCRIPT,
      t.token,
      SECRET,
      suite.app.config.auth.encryptionKey!,
      process.env.ADMIN_API_KEY!,
      TWILIO_TOKEN,
    ];
    for (const text of forbidden) expect(exported).not.toContain(text);
    // Nor a phone number (the customers', the lines').
    expect(exported.match(/\+\d{10,15}/g) ?? []).toEqual([]);
    // Query values are redacted; Redis commands are named without their arguments.
    const redis = otlp.spans.filter((s) => dbSystem(s) === 'redis');
    expect(redis.length).toBeGreaterThan(0);
    for (const s of redis)
      expect(s.attributes['db.query.text'] ?? s.attributes['db.statement']).toMatch(/^[a-z]+$/i);
  }, 60_000);

  it("a request the sampler leaves out exports nothing, nor do its jobs and webhooks; its lines share one trace id; a caller's sampled trace is continued", async () => {
    // This replica's workers alone take the jobs: the traced one stops first (once the media sockets it holds close).
    clients.forEach((c) => c.close());
    await traced?.stop();
    traced = undefined;
    // Jobs queued by earlier tests (delayed statuses, webhooks) may still run here, in their sampled traces.
    const earlier = new Set(otlp.spans.map((s) => s.traceId));
    const service = 'agent-platform-left-out';
    leftOut = await startApiProcess(
      replicaEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_SERVICE_NAME: service,
        // No new trace is kept: every request that would start one is left out by the draw.
        OTEL_TRACES_SAMPLER: 'parentbased_always_off',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        LOG_LEVEL: 'info',
      }),
      { output: true },
    );
    const replica = leftOut;
    const { replyId, conversation } = await inboundSms(replica, '4444');
    await waitFor(
      async () =>
        hooks.at('/events').filter((r) => r.body.includes(conversation)).length >= 2 ? true : undefined,
      20_000,
      'webhooks of the left-out request',
    );
    // Its request line and the reply's status job lines carry one trace id, though nothing of it is exported.
    const ofReply = statusJobOf(replyId);
    const lines = await logLinesOnce(replica, (l) => l.msg === 'job finished' && ofReply(l));
    const traceId = lines.find(
      (l) => l.msg === 'request completed' && l.req?.url === '/api/v1/sms/simulate-inbound',
    )?.trace_id;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(lines.find((l) => l.msg === 'job started' && ofReply(l))?.trace_id).toBe(traceId);

    // A request that continues a caller's sampled trace is traced, under the caller's span.
    const caller = { traceId: 'a1b2c3d4e5f60718293a4b5c6d7e8f90', spanId: '0123456789abcdef' };
    await replica
      .http(t.host, t.token)
      .get('/api/v1/agents')
      .set('traceparent', `00-${caller.traceId}-${caller.spanId}-01`)
      .expect(200);
    const continued = await spanWhere(
      "the caller's trace",
      (s) => s.traceId === caller.traceId && s.kind === SERVER,
    );
    expect(continued).toMatchObject({ parentSpanId: caller.spanId, name: 'GET /api/v1/agents' });
    await replica.stop();
    leftOut = undefined;
    // Everything else the replica exported is in the caller's trace.
    const exported = otlp.spans.filter(
      (s) => s.resource['service.name'] === service && !earlier.has(s.traceId),
    );
    expect(exported.length).toBeGreaterThan(0);
    expect(exported.filter((s) => s.traceId !== caller.traceId)).toEqual([]);
    expect(otlp.spans.filter((s) => s.traceId === traceId)).toEqual([]);
  }, 120_000);
});
