import * as fs from 'node:fs';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { createAgentId } from '../factories/agent.factory';
import { createContact } from '../factories/contact.factory';
import { createWebhook } from '../factories/webhook.factory';
import { createTenant, TestTenant } from '../factories/workspace.factory';
import { MISSING } from '../support/ids';
import { LlmServer } from '../support/llm-server';
import { pcmWav, SttServer } from '../support/stt-server';
import { waitFor } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';
import { useTestApp } from '../setup/suite';

describe('transcriptions (§14) against a local OpenAI-compatible transcription server', () => {
  const suite = useTestApp({
    servers: {
      stt: () => SttServer.start(),
      llm: () => LlmServer.start(),
      rx: () => WebhookReceiver.start(),
    },
    env: ({ stt, llm }) => ({ STT_BASE_URL: stt.url, STT_API_KEY: 'stt-key', LLM_BASE_URL: llm.url }),
    storage: 'transcriptions',
    tenants: ['t', 'other'],
  });
  beforeEach(() => suite.stt.reset());

  const finished = (tenant: TestTenant, uuid: string, timeoutMs = 20_000) =>
    waitFor(
      async () => {
        const res = await tenant.http.get(`/api/v1/transcriptions/${uuid}`);
        return ['completed', 'failed'].includes(res.body.data?.status) ? res.body.data : undefined;
      },
      timeoutMs,
      `transcription ${uuid} finished`,
    );

  const upload = (tenant: TestTenant, audio: Buffer, fields: Record<string, string> = {}) => {
    const req = tenant.http.post('/api/v1/transcriptions').attach('voice_file', audio, 'call.wav');
    for (const [k, v] of Object.entries(fields)) req.field(k, v);
    return req;
  };

  it('transcribes an upload with timed segments through verbose_json', async () => {
    const res = await upload(suite.t, pcmWav(6), {
      reference_id: 'crm-1',
      possible_language: 'en',
      metadata: JSON.stringify({ ticket: 'T-1' }),
    }).expect(201);
    expect(res.body.message).toBe('Transcription request submitted successfully');
    expect(res.body.data).toMatchObject({
      status: 'pending',
      qa_status: 'none',
      reference_id: 'crm-1',
      file: { name: 'call.wav', bytes: pcmWav(6).length },
      metadata: { ticket: 'T-1' },
    });
    const done = await finished(suite.t, res.body.data.uuid);
    expect(done).toMatchObject({ status: 'completed', attempts: 1, error: null, language: 'en' });
    expect(done.file.duration).toBeCloseTo(6, 1);
    expect(suite.stt.calls).toHaveLength(1);
    expect(suite.stt.calls[0].fields).toMatchObject({
      model: 'whisper-1',
      response_format: 'verbose_json',
      'timestamp_granularities[]': 'segment',
      language: 'en',
    });
    expect(suite.stt.calls[0].authorization).toBe('Bearer stt-key');
    const tr = await suite.t.http.get(`/api/v1/transcriptions/${res.body.data.uuid}/transcript`).expect(200);
    expect(tr.body.data.segments).toEqual([
      { id: 0, start: 0, end: 1.5, speaker: 'unknown', text: 'Agent line 0' },
      { id: 1, start: 2, end: 3.5, speaker: 'unknown', text: 'Agent line 1' },
      { id: 2, start: 4, end: 5.5, speaker: 'unknown', text: 'Agent line 2' },
    ]);
    expect(tr.body.data).toMatchObject({ status: 'completed', conversation: { uuid: null }, session: null });
    const list = await suite.t.http.get('/api/v1/transcriptions?reference_id=crm-1').expect(200);
    expect(list.body.data.items.map((x: { uuid: string }) => x.uuid)).toEqual([res.body.data.uuid]);
  });

  it('fetches voice_url and customer_voice_url and merges the two tracks by time', async () => {
    const server = await AudioFiles.start({
      '/agent.wav': pcmWav(4, 1000),
      '/customer.wav': pcmWav(4, -1000),
    });
    try {
      const res = await suite.t.http
        .post('/api/v1/transcriptions')
        .send({ voice_url: server.url('/agent.wav'), customer_voice_url: server.url('/customer.wav') })
        .expect(201);
      const done = await finished(suite.t, res.body.data.uuid);
      expect(done.status).toBe('completed');
      const tr = await suite.t.http
        .get(`/api/v1/transcriptions/${res.body.data.uuid}/transcript`)
        .expect(200);
      expect(
        tr.body.data.segments.map((s: { speaker: string; start: number }) => [s.speaker, s.start]),
      ).toEqual([
        ['agent', 0],
        ['customer', 1],
        ['agent', 2],
        ['customer', 3],
      ]);
      expect(tr.body.data.conversation.plain).toBe(
        'Agent: Agent line 0\nCustomer: Customer line 0\nAgent: Agent line 1\nCustomer: Customer line 1',
      );
    } finally {
      await server.close();
    }
  });

  it('cuts a WAV over 25 MB into chunks of at most 10 minutes and moves segment times back', async () => {
    // 16 kHz mono 16-bit: 32,000 bytes a second; 850 s is 27.2 MB, so two chunks (600 s and 250 s).
    const big = pcmWav(850, 1000, 16000);
    suite.stt.respond = (call) => ({
      body: {
        text: 'part',
        language: 'en',
        duration: (call.file.length - 44) / 32000,
        segments: [{ start: 1, end: 2, text: `chunk of ${Math.round((call.file.length - 44) / 32000)} s` }],
      },
    });
    const res = await upload(suite.t, big).expect(201);
    const done = await finished(suite.t, res.body.data.uuid, 60_000);
    expect(done.status).toBe('completed');
    expect(suite.stt.calls.map((c) => c.file.length)).toEqual([600 * 32000 + 44, 250 * 32000 + 44]);
    const tr = await suite.t.http.get(`/api/v1/transcriptions/${res.body.data.uuid}/transcript`).expect(200);
    expect(tr.body.data.segments).toEqual([
      { id: 0, start: 1, end: 2, speaker: 'unknown', text: 'chunk of 600 s' },
      { id: 1, start: 601, end: 602, speaker: 'unknown', text: 'chunk of 250 s' },
    ]);
    expect(tr.body.data.duration).toBeCloseTo(850, 0);
  }, 90_000);

  it('retries a transient STT error (503) and completes on the next attempt', async () => {
    suite.stt.respond = (call, n) => (n === 1 ? { status: 503 } : { body: { text: 'ok', segments: [] } });
    const res = await upload(suite.t, pcmWav(2)).expect(201);
    const done = await finished(suite.t, res.body.data.uuid, 30_000);
    expect(done).toMatchObject({ status: 'completed', attempts: 2, error: null });
    expect(suite.stt.calls).toHaveLength(2);
  }, 40_000);

  it('fails unreadable audio at once (a 400 from the service) and can be retried', async () => {
    suite.stt.respond = () => ({ status: 400 });
    const res = await upload(suite.t, pcmWav(2)).expect(201);
    const done = await finished(suite.t, res.body.data.uuid);
    expect(done).toMatchObject({ status: 'failed', attempts: 1 });
    expect(done.error).toMatch(/HTTP 400/);
    const conflict = await suite.t.http
      .get(`/api/v1/transcriptions/${res.body.data.uuid}/transcript`)
      .expect(409);
    expect(conflict.body).toMatchObject({ message: 'Transcription is failed', error: { code: 'CONFLICT' } });
    suite.stt.reset();
    const again = await suite.t.http.post(`/api/v1/transcriptions/${res.body.data.uuid}/retry`).expect(200);
    expect(again.body.data.status).toBe('pending');
    expect((await finished(suite.t, res.body.data.uuid)).status).toBe('completed');
    await suite.t.http.post(`/api/v1/transcriptions/${res.body.data.uuid}/retry`).expect(409);
  });

  it('with qa_agent_uuid makes a phone conversation whose session is evaluated with the voice block', async () => {
    const agentId = await createAgentId(suite.t);
    const contact = await createContact(suite.t, { name: 'Ada', phone_number: '+14155550123' });
    const res = await upload(suite.t, pcmWav(4), {
      qa_agent_uuid: agentId,
      customer_phone: '+14155550123',
    }).expect(201);
    expect(res.body.data).toMatchObject({
      qa_status: 'pending',
      contact_uuid: contact.uuid ?? contact.contact_uuid,
    });
    const done = await finished(suite.t, res.body.data.uuid);
    expect(done.status).toBe('completed');
    expect(done.conversation_uuid).toEqual(expect.any(String));
    const qa = await waitFor(
      async () => {
        const r = await suite.t.http.get(`/api/v1/transcriptions/${done.uuid}`);
        return r.body.data.qa_status === 'completed' ? r.body.data : undefined;
      },
      20_000,
      'QA completed',
    );
    const tr = await suite.t.http.get(`/api/v1/transcriptions/${qa.uuid}/transcript`).expect(200);
    expect(tr.body.data.session).toMatchObject({ uuid: qa.session_uuid, type: 'voice', status: 'ended' });
    expect(tr.body.data.evaluations.map((e: { feature: string }) => e.feature).sort()).toEqual([
      'success_evaluation_prompt',
      'summary_prompt',
    ]);
    expect(tr.body.data.evaluations.every((e: { channel: string }) => e.channel === 'phone')).toBe(true);
    const conv = await suite.t.http.get(`/api/v1/conversations/${qa.conversation_uuid}`).expect(200);
    expect(conv.body.data).toMatchObject({ channel: 'phone', status: 'closed', source: 'transcription' });
  });

  it('sends transcription_completed to workspace webhooks and to webhook_url with its bearer token', async () => {
    const tenant = await createTenant(suite.app);
    await createWebhook(tenant, { url: suite.rx.url('/ws-hook'), events: ['transcription_completed'] });
    const res = await upload(tenant, pcmWav(2), {
      webhook_url: suite.rx.url('/own-hook'),
      webhook_header_token: 'tok-123',
    }).expect(201);
    const own = await waitFor(async () => suite.rx.at('/own-hook')[0], 20_000, 'per-request webhook');
    expect(own.headers.authorization).toBe('Bearer tok-123');
    expect(own.headers['webhook-id']).toEqual(expect.any(String));
    expect(own.headers['webhook-signature']).toBeUndefined();
    const body = JSON.parse(own.body);
    expect(body.type).toBe('transcription_completed');
    expect(body.data.transcription).toMatchObject({ uuid: res.body.data.uuid, status: 'completed' });
    expect(body.data.transcript.segments[0]).toMatchObject({ speaker: 'unknown', text: 'Agent line 0' });
    const ws = await waitFor(async () => suite.rx.at('/ws-hook')[0], 20_000, 'workspace webhook');
    expect(ws.headers.authorization).toBeUndefined();
    expect(ws.headers['webhook-id']).toBe(own.headers['webhook-id']);
    expect(JSON.parse(ws.body).data.transcription.uuid).toBe(res.body.data.uuid);
    // The token is stored sealed.
    const [row] = await suite.app
      .get<DataSource>(DataSource)
      .query('SELECT webhook_token_ciphertext FROM transcriptions WHERE id = $1', [res.body.data.uuid]);
    expect(row.webhook_token_ciphertext).not.toContain('tok-123');
  });

  it('checks the request: one of voice_file or voice_url, audio bytes, https and private addresses', async () => {
    const none = await suite.t.http.post('/api/v1/transcriptions').send({ reference_id: 'x' }).expect(422);
    expect(none.body.error.field).toBe('voice_file');
    const text = await upload(suite.t, Buffer.from('just some text, not audio')).expect(422);
    expect(text.body.error).toMatchObject({ field: 'voice_file' });
    const agent = await suite.t.http
      .post('/api/v1/transcriptions')
      .send({ voice_url: 'https://example.com/a.wav', qa_agent_uuid: MISSING })
      .expect(422);
    expect(agent.body.error.field).toBe('qa_agent_uuid');
    const lang = await suite.t.http
      .post('/api/v1/transcriptions')
      .send({ voice_url: 'https://example.com/a.wav', possible_language: 'english' })
      .expect(422);
    expect(lang.body.error.field).toBe('possible_language');
  });

  it('ignores a file under another field name: voice_file is then missing (422), beside voice_file it is dropped', async () => {
    const uploads = path.join(suite.app.config.storageDir, 'uploads', 'tmp');
    const wrong = await suite.t.http
      .post('/api/v1/transcriptions')
      .attach('file', pcmWav(1), 'call.wav')
      .field('reference_id', 'wrong-field')
      .expect(422);
    expect(wrong.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'voice_file' });
    const both = await suite.t.http
      .post('/api/v1/transcriptions')
      .attach('notes', Buffer.from('not audio'), 'notes.txt')
      .attach('voice_file', pcmWav(1), 'call.wav')
      .field('reference_id', 'extra-file')
      .expect(201);
    expect(both.body.data.file).toMatchObject({ name: 'call.wav', bytes: pcmWav(1).length });
    const twice = await suite.t.http
      .post('/api/v1/transcriptions')
      .attach('voice_file', pcmWav(1), 'a.wav')
      .attach('voice_file', pcmWav(1), 'b.wav')
      .expect(422);
    expect(twice.body.error).toMatchObject({ field: 'voice_file' });
    await finished(suite.t, both.body.data.uuid);
    expect(fs.readdirSync(uploads)).toEqual([]);
  });

  it('keeps an Idempotency-Key on a JSON request and on an upload: one transcription, the replay answers the first', async () => {
    const server = await AudioFiles.start({ '/keyed.wav': pcmWav(1) });
    try {
      const key = `json-${Date.now()}`;
      const body = { voice_url: server.url('/keyed.wav'), reference_id: key };
      const first = await suite.t.http
        .post('/api/v1/transcriptions')
        .set('Idempotency-Key', key)
        .send(body)
        .expect(201);
      const again = await suite.t.http
        .post('/api/v1/transcriptions')
        .set('Idempotency-Key', key)
        .send(body)
        .expect(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.text).toBe(first.text);
      const other = await suite.t.http
        .post('/api/v1/transcriptions')
        .set('Idempotency-Key', key)
        .send({ ...body, reference_id: 'another' })
        .expect(422);
      expect(other.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
      const file = `upload-${Date.now()}`;
      const sent = () =>
        upload(suite.t, pcmWav(1), { reference_id: file }).set('Idempotency-Key', file).expect(201);
      const up = await sent();
      const upAgain = await sent();
      expect(upAgain.headers['idempotent-replayed']).toBe('true');
      expect(upAgain.body.data.uuid).toBe(up.body.data.uuid);
      for (const ref of [key, file]) {
        const list = await suite.t.http.get(`/api/v1/transcriptions?reference_id=${ref}`).expect(200);
        expect(list.body.data.items).toHaveLength(1);
      }
      await finished(suite.t, first.body.data.uuid);
      await finished(suite.t, up.body.data.uuid);
    } finally {
      await server.close();
    }
  });

  it('answers 404 to another workspace for read, transcript, retry and delete; delete removes it', async () => {
    const res = await upload(suite.t, pcmWav(2)).expect(201);
    const uuid = res.body.data.uuid;
    await finished(suite.t, uuid);
    for (const req of [
      suite.other.http.get(`/api/v1/transcriptions/${uuid}`),
      suite.other.http.get(`/api/v1/transcriptions/${uuid}/transcript`),
      suite.other.http.post(`/api/v1/transcriptions/${uuid}/retry`),
      suite.other.http.delete(`/api/v1/transcriptions/${uuid}`),
    ])
      expect((await req.expect(404)).body.error.code).toBe('RESOURCE_NOT_FOUND');
    const list = await suite.other.http.get('/api/v1/transcriptions').expect(200);
    expect(list.body.data.items.map((x: { uuid: string }) => x.uuid)).not.toContain(uuid);
    await suite.t.http.delete(`/api/v1/transcriptions/${uuid}`).expect(200);
    await suite.t.http.get(`/api/v1/transcriptions/${uuid}`).expect(404);
  });
});

describe('transcriptions without a transcription service', () => {
  const suite = useTestApp({
    servers: { rx: () => WebhookReceiver.start() },
    env: { STT_BASE_URL: '' },
    tenants: ['t'],
  });

  it('fails with the reason and announces transcription_failed', async () => {
    await createWebhook(suite.t, { url: suite.rx.url('/failed'), events: ['transcription_failed'] });
    const res = await suite.t.http
      .post('/api/v1/transcriptions')
      .attach('voice_file', pcmWav(1), 'a.wav')
      .field('webhook_url', suite.rx.url('/own-failed'))
      .expect(201);
    const failed = await waitFor(
      async () => {
        const r = await suite.t.http.get(`/api/v1/transcriptions/${res.body.data.uuid}`);
        return r.body.data.status === 'failed' ? r.body.data : undefined;
      },
      20_000,
      'failed',
    );
    expect(failed.error).toMatch(/^no transcription service is configured/);
    const hook = await waitFor(async () => suite.rx.at('/failed')[0], 20_000, 'failed webhook');
    const body = JSON.parse(hook.body);
    expect(body.type).toBe('transcription_failed');
    expect(body.data.transcription).toMatchObject({ uuid: res.body.data.uuid, status: 'failed' });
    expect(body.data.transcript).toBeUndefined();
    // The request's own webhook gets the same event, with no Authorization header when no token was given.
    const own = await waitFor(
      async () => suite.rx.at('/own-failed')[0],
      20_000,
      'per-request failed webhook',
    );
    expect(own.headers.authorization).toBeUndefined();
    expect(JSON.parse(own.body)).toMatchObject({ type: 'transcription_failed', data: body.data });
  });
});

/** A local HTTP server handing out recordings by path. */
class AudioFiles {
  private constructor(
    private readonly server: import('node:http').Server,
    private readonly port: number,
  ) {}

  static async start(files: Record<string, Buffer>): Promise<AudioFiles> {
    const http = await import('node:http');
    const server = http.createServer((req, res) => {
      const body = files[req.url ?? ''];
      if (!body) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': body.length }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return new AudioFiles(server, (server.address() as { port: number }).port);
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}
