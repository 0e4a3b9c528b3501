import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createAgent } from '../factories/agent.factory';
import { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { defaultAnswer, LlmServer } from '../support/llm-server';
import { SpeechServer } from '../support/speech-server';
import { waitFor } from '../support/wait';
import { Refusal, WebCallClient, webCallEnv } from '../support/web-call-client';

const PUBLIC = 'https://calls.example.test';
const GREETING = 'Hello, thanks for calling us today.';
const REPLY = 'Sure, I can help with that. What is your order number?';

describe('web calls: the resource, the client token and the socket protocol', () => {
  const clients: WebCallClient[] = [];
  afterAll(() => clients.forEach((c) => c.close()));
  const suite = useTestApp({
    servers: { llm: () => LlmServer.start(), speech: () => SpeechServer.start() },
    env: (servers) => ({ ...webCallEnv(servers, PUBLIC), MAX_CONCURRENT_CALLS: '6', LOG_LEVEL: 'debug' }),
    tenants: ['t', 'other', 'busy'],
    captureLogs: true,
  });
  /** Every client token minted here: none may ever reach a log line. */
  const minted: string[] = [];
  let t: TestTenant;
  let other: TestTenant;
  let agentId: string;
  let otherAgentId: string;

  /** A web call of the tenant: the API's answer, with its socket address on the test app. */
  const webCall = async (tenant = t, body: Record<string, unknown> = {}) => {
    const res = await tenant.http
      .post('/api/v1/web-calls')
      .send({ agent_uuid: tenant === t ? agentId : otherAgentId, ...body })
      .expect(201);
    const data = res.body.data;
    minted.push(data.client_token as string);
    return { ...data, socket: onApp(data.websocket_url as string) } as {
      call: any;
      client_token: string;
      expires_at: string;
      page_url: string;
      websocket_url: string;
      socket: string;
    };
  };
  const onApp = (url: string) =>
    url.replace(PUBLIC.replace('https', 'wss'), suite.app.url.replace('https', 'wss'));
  const socketWith = (callId: string, token: string) =>
    `${suite.app.url.replace('https', 'wss')}/hooks/v1/web/calls/${callId}?token=${token}`;
  const connect = async (url: string, origin?: string) => {
    const client = await WebCallClient.connect(url, { origin });
    clients.push(client);
    return client;
  };
  const callOf = async (id: string, tenant = t) =>
    (await tenant.http.get(`/api/v1/calls/${id}`).expect(200)).body.data;
  const statusOf = (id: string, want: string[]) =>
    waitFor(
      async () => {
        const c = await callOf(id);
        return want.includes(c.status) ? c : undefined;
      },
      15_000,
      `call ${want.join('|')}`,
    );
  /** A started call: the socket open, `started` received, the greeting played. */
  const started = async () => {
    const wc = await webCall();
    const client = await connect(wc.socket);
    client.start();
    await waitFor(async () => (client.events('started').length ? true : undefined), 10_000, 'started');
    await waitFor(async () => (client.events('mark').length ? true : undefined), 10_000, 'greeting');
    return { id: wc.call.uuid as string, client };
  };

  beforeAll(async () => {
    ({ t, other } = suite);
    agentId = (
      await createAgent(t, {
        language: 'en',
        settings: { voice: { first_message: GREETING, end_of_turn_silence_ms: 300 } },
      })
    ).agent_uuid;
    otherAgentId = (await createAgent(other, { language: 'en' })).agent_uuid;
    suite.llm.respond = (call) => (call.kind === 'reply' ? { content: REPLY } : defaultAnswer(call));
  });

  // Calls left ringing by a test end, so the workspace's concurrency limit is free for the next one.
  afterEach(async () => {
    for (const tenant of [t, other]) {
      const live = (await tenant.http.get('/api/v1/calls?status=queued,ringing,in-progress&per_page=100'))
        .body.data.items as { uuid: string }[];
      for (const c of live) await tenant.http.post(`/api/v1/calls/action/${c.uuid}/hangup`).send({});
    }
  });

  it('POST /web-calls answers a queued web call, a single-use client token kept hashed, the page and socket URLs', async () => {
    const wc = await webCall(t, { variables: { order: '42' }, metadata: { source: 'site' } });
    expect(wc.call).toMatchObject({
      communication: 'web',
      status: 'queued',
      direction: 'Inbound',
      provider: 'web',
      phone_number_uuid: null,
      conversation_uuid: wc.call.uuid,
      variables: { order: '42' },
      metadata: { source: 'site' },
      is_simulation: false,
    });
    expect(wc.client_token).toMatch(/^wct_[A-Za-z0-9_-]{43}$/);
    expect(wc.page_url).toBe(`${PUBLIC}/hooks/v1/web/calls/${wc.call.uuid}/page#token=${wc.client_token}`);
    expect(wc.websocket_url).toBe(
      `wss://calls.example.test/hooks/v1/web/calls/${wc.call.uuid}?token=${wc.client_token}`,
    );
    const expires = new Date(wc.expires_at).getTime() - Date.now();
    expect(expires).toBeGreaterThan(590_000);
    expect(expires).toBeLessThanOrEqual(600_000);
    // Only the hash is stored.
    const rows = await suite.app
      .get<DataSource>(DataSource)
      .query(`SELECT * FROM web_call_tokens WHERE call_id = $1`, [wc.call.uuid]);
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).toBe(createHash('sha256').update(wc.client_token).digest('hex'));
    expect(JSON.stringify(rows[0])).not.toContain(wc.client_token);
    // Like every call, its provider takes it on: it rings while the token waits for the page.
    await statusOf(wc.call.uuid, ['ringing']);
    const conversation = (await t.http.get(`/api/v1/conversations/${wc.call.uuid}`).expect(200)).body.data;
    expect(conversation.channel).toBe('web');
  });

  it('refuses a bad body by field: no agent, another workspace’s agent or contact, a bad duration', async () => {
    const refused = async (body: Record<string, unknown>, field: string) => {
      const res = await t.http.post('/api/v1/web-calls').send(body).expect(422);
      expect(JSON.stringify(res.body)).toContain(field);
    };
    await refused({}, 'agent_uuid');
    await refused({ agent_uuid: 'nope' }, 'agent_uuid');
    await refused({ agent_uuid: otherAgentId }, 'agent_uuid');
    await refused({ agent_uuid: agentId, contact_uuid: otherAgentId }, 'contact_uuid');
    await refused({ agent_uuid: agentId, max_duration_seconds: 5 }, 'max_duration_seconds');
    await refused({ agent_uuid: agentId, variables: { a: { nested: true } } }, 'variables');
    await refused({ agent_uuid: agentId, variables: null }, 'variables');
    await refused({ agent_uuid: agentId, metadata: null }, 'metadata');
    await refused({ agent_uuid: agentId, record: null }, 'record');
  });

  it('a started call: greeting audio as 640-byte PCM frames then a mark; an utterance reaches STT at 16 kHz, the model answers, the reply plays; transcript, status and turn timings; the page hangs up', async () => {
    suite.speech.transcripts.push('I need help with my order');
    const { id, client } = await started();
    const call = await statusOf(id, ['in-progress']);
    expect(call.communication).toBe('web');
    expect(client.events('started')[0]).toMatchObject({
      call_uuid: id,
      sample_rate: 16000,
      frame_bytes: 640,
    });
    expect(client.frames.length).toBeGreaterThan(10);
    expect(client.frames.every((f) => f.bytes === 640)).toBe(true);
    await waitFor(
      async () => (client.events('transcript').some((m) => m.text === GREETING) ? true : undefined),
      5_000,
      'greeting transcript',
    );

    const before = suite.speech.transcriptions.length;
    client.play('silence', 400);
    client.utter(500, 700);
    await waitFor(async () => (client.events('mark').length >= 2 ? true : undefined), 15_000, 'reply');
    const stt = suite.speech.transcriptions[before];
    expect(stt.language).toBe('en');
    // 16 kHz 16-bit mono: the WAV holds the utterance (the tone and some of the silence around it).
    expect(stt.seconds).toBeGreaterThan(0.4);
    expect(stt.seconds).toBeLessThan(3);
    expect(suite.llm.callsOf('reply').length).toBeGreaterThan(0);
    expect(client.events('transcript').map((m) => [m.role, m.text])).toEqual([
      ['agent', GREETING],
      ['customer', 'I need help with my order'],
      ['agent', REPLY],
    ]);
    expect(client.events('status').map((m) => m.state)).toEqual(
      expect.arrayContaining(['listening', 'thinking', 'speaking']),
    );
    const turn = client.events('turn')[0];
    expect(turn.voice_to_voice_ms).toBeGreaterThan(0);
    expect(turn.voice_to_voice_ms).toBeLessThan(10_000);

    client.hangUp();
    expect((await client.whenClosed()).code).toBe(1000);
    const ended = await statusOf(id, ['completed']);
    expect(ended).toMatchObject({ end_reason: 'customer_hangup', error: null });
    const messages = (await t.http.get(`/api/v1/conversations/${id}/messages?per_page=100`).expect(200)).body
      .data.items as { sender: string; content: string }[];
    expect(messages.map((m) => [m.sender, m.content])).toEqual([
      ['agent', GREETING],
      ['customer', 'I need help with my order'],
      ['agent', REPLY],
    ]);
    // The recording: both sides mixed, 16 kHz mono.
    const recorded = await waitFor(
      async () => (await callOf(id)).recording ?? undefined,
      10_000,
      'recording',
    );
    expect(recorded).toMatchObject({ url: `/api/v1/calls/${id}/recording`, channels: 1 });
    const wav = await t.http
      .get(`/api/v1/calls/${id}/recording`)
      .buffer(true)
      .parse((res, cb) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => cb(null, Buffer.concat(chunks)));
      })
      .expect(200);
    expect((wav.body as Buffer).readUInt32LE(24)).toBe(16000);
    await other.http.get(`/api/v1/calls/${id}`).expect(404);
  });

  it('GET /calls?communication=web lists web calls only; an unknown communication is 422', async () => {
    const wc = await webCall();
    const web = (await t.http.get('/api/v1/calls?communication=web&per_page=100').expect(200)).body.data
      .items;
    expect(web.length).toBeGreaterThan(0);
    expect(web.every((c: any) => c.communication === 'web')).toBe(true);
    expect(web.map((c: any) => c.uuid)).toContain(wc.call.uuid);
    const phone = (await t.http.get('/api/v1/calls?communication=phone&per_page=100').expect(200)).body.data
      .items;
    expect(phone.map((c: any) => c.uuid)).not.toContain(wc.call.uuid);
    const bad = await t.http.get('/api/v1/calls?communication=fax').expect(422);
    expect(bad.body.message).toContain('communication');
  });

  it('the token opens its call once: a second handshake is 401 (already used), the first socket goes on', async () => {
    const wc = await webCall();
    const first = await connect(wc.socket);
    first.start();
    await waitFor(async () => (first.events('started').length ? true : undefined));
    const again = await WebCallClient.refusal(wc.socket);
    expect(again).toMatchObject({
      status: 401,
      body: {
        success: false,
        message: 'The web call token has already been used',
        error: { code: 'INVALID_AUTH_TOKEN' },
      },
    });
    expect(first.closed).toBe(false);
    // Two handshakes at once with a fresh token: exactly one opens.
    const race = await webCall();
    const outcomes = await Promise.allSettled([connect(race.socket), connect(race.socket)]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect((outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult).reason.status).toBe(401);
  });

  it('refuses handshakes in HTTP: no token 401, a wrong or foreign token 401, an expired one 401, a bad id 422, an unknown call 404, an ended call 409', async () => {
    const wc = await webCall();
    const id = wc.call.uuid as string;
    const base = `${suite.app.url.replace('https', 'wss')}/hooks/v1/web/calls`;
    expect(await WebCallClient.refusal(`${base}/${id}`)).toMatchObject({
      status: 401,
      body: { error: { code: 'MISSING_AUTH_TOKEN' } },
    });
    expect(await WebCallClient.refusal(socketWith(id, 'wct_nope'))).toMatchObject({
      status: 401,
      body: {
        message: 'The web call token is not valid for this call',
        error: { code: 'INVALID_AUTH_TOKEN' },
      },
    });
    // Another workspace's token, valid for its own call, opens nothing of this one (and says nothing of it).
    const foreign = await webCall(other);
    expect(await WebCallClient.refusal(socketWith(id, foreign.client_token))).toMatchObject({
      status: 401,
      body: { message: 'The web call token is not valid for this call' },
    });
    // Another call's token of the same workspace neither.
    const second = await webCall();
    expect((await WebCallClient.refusal(socketWith(id, second.client_token))).status).toBe(401);
    expect(await WebCallClient.refusal(socketWith('nope', wc.client_token))).toMatchObject({
      status: 422,
      body: { error: { code: 'INVALID_UUID' } },
    });
    expect(
      await WebCallClient.refusal(socketWith('0190f3a2-7c1e-7a3b-8c4d-1234567890ab', wc.client_token)),
    ).toMatchObject({ status: 404, body: { error: { code: 'RESOURCE_NOT_FOUND' } } });
    expect((await WebCallClient.refusal(`${base}/${id}/other?token=x`)).status).toBe(404);

    await suite.app
      .get<DataSource>(DataSource)
      .query(`UPDATE web_call_tokens SET expires_at = now() - interval '1 second' WHERE call_id = $1`, [id]);
    expect(await WebCallClient.refusal(wc.socket)).toMatchObject({
      status: 401,
      body: { message: 'The web call token has expired' },
    });

    const ended = await webCall();
    await t.http.post(`/api/v1/calls/action/${ended.call.uuid}/hangup`).send({}).expect(200);
    expect((await callOf(ended.call.uuid)).end_reason).toBe('canceled');
    expect(await WebCallClient.refusal(ended.socket)).toMatchObject({
      status: 409,
      body: { error: { code: 'CALL_ENDED' } },
    });
  });

  it('a call that ends while its handshake is under way is refused 409 CALL_ENDED at the handshake, its token unused', async () => {
    const wc = await webCall();
    const id = wc.call.uuid as string;
    await statusOf(id, ['ringing']);
    const db = suite.app.get<DataSource>(DataSource);
    const ending = db.createQueryRunner();
    await ending.connect();
    try {
      // Another process ends the call: it holds the call's row, as every move of a call does, then commits the end.
      await ending.startTransaction();
      await ending.query(`SELECT id FROM calls WHERE workspace_id = $1 AND id = $2 FOR UPDATE`, [
        t.workspaceId,
        id,
      ]);
      const [{ pid }] = await ending.query(`SELECT pg_backend_pid() AS pid`);
      let settled = false;
      const handshake = WebCallClient.refusal(wc.socket).then(
        (refusal) => ((settled = true), { refusal }),
        (err: Error) => ((settled = true), { err }),
      );
      // The handshake has found the call live and its token good, and waits for the call's row before using the token.
      await waitFor(
        async () =>
          settled ||
          (await db.query(`SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`, [pid]))
            .length
            ? true
            : undefined,
        10_000,
        'the handshake waiting for the call',
      );
      expect(await Promise.race([handshake, Promise.resolve('waiting')])).toBe('waiting');
      await ending.query(
        `UPDATE calls SET status = 'canceled', end_reason = 'canceled', ended_at = now()
          WHERE workspace_id = $1 AND id = $2`,
        [t.workspaceId, id],
      );
      await ending.commitTransaction();
      expect(await handshake).toEqual({
        refusal: {
          status: 409,
          body: expect.objectContaining({
            message: 'Call has ended',
            error: expect.objectContaining({ code: 'CALL_ENDED' }),
          }),
        },
      });
    } finally {
      if (ending.isTransactionActive) await ending.rollbackTransaction();
      await ending.release();
    }
    const [token] = await db.query(`SELECT used_at FROM web_call_tokens WHERE call_id = $1`, [id]);
    expect(token.used_at).toBeNull();
  });

  it('the page origin: the API’s own and the workspace’s allowed origins open the call, another origin is 403', async () => {
    const wc = await webCall();
    const refusal = await WebCallClient.refusal(wc.socket, { origin: 'https://evil.example' });
    expect(refusal).toMatchObject({
      status: 403,
      body: { error: { code: 'FORBIDDEN' }, message: expect.stringContaining('https://evil.example') },
    });
    // The refusal used nothing: the same token still opens the call from the API's own page.
    const own = await connect(wc.socket, PUBLIC);
    own.close();

    const settings = await t.http
      .put('/api/v1/web-calls/settings')
      .send({ allowed_origins: ['https://Shop.example.com/', 'http://localhost:8080'] })
      .expect(200);
    expect(settings.body.data).toEqual({
      allowed_origins: ['https://shop.example.com', 'http://localhost:8080'],
      own_origin: PUBLIC,
    });
    expect((await t.http.get('/api/v1/web-calls/settings').expect(200)).body.data.allowed_origins).toEqual([
      'https://shop.example.com',
      'http://localhost:8080',
    ]);
    const shop = await webCall();
    (await connect(shop.socket, 'https://shop.example.com')).close();
    // Another workspace's allowed origins are not this one's.
    const foreign = await webCall(other);
    expect((await WebCallClient.refusal(foreign.socket, { origin: 'https://shop.example.com' })).status).toBe(
      403,
    );

    for (const bad of [
      'http://shop.example.com',
      'https://shop.example.com/path',
      'shop.example.com',
      'ftp://x',
    ]) {
      const res = await t.http
        .put('/api/v1/web-calls/settings')
        .send({ allowed_origins: [bad] })
        .expect(422);
      expect(JSON.stringify(res.body)).toContain('allowed_origins[0]');
    }
    await t.http.put('/api/v1/web-calls/settings').send({ allowed_origins: 'x' }).expect(422);
    // The call page may be framed by those origins only.
    const page = await t.http.get(`/hooks/v1/web/calls/${shop.call.uuid}/page`).expect(200);
    expect(page.headers['content-security-policy']).toContain(
      "frame-ancestors 'self' https://shop.example.com http://localhost:8080",
    );
  });

  const broken: [string, (c: WebCallClient) => void, number, string][] = [
    ['an odd-length audio frame', (c) => c.sendRaw(Buffer.alloc(641)), 1003, 'even number of bytes'],
    ['a text frame that is not JSON', (c) => c.sendRaw('hello', false), 1003, 'not JSON'],
    ['a message of an unknown type', (c) => c.send({ type: 'dance' }), 1008, 'Unknown message type'],
    ['a second start', (c) => c.start(), 1008, 'start was sent twice'],
    ['a frame over 64 KiB', (c) => c.sendRaw(Buffer.alloc(64 * 1024 + 2)), 1009, 'larger than 64 KiB'],
  ];
  it.each(broken)(
    '%s closes the socket with its code and reason, and ends the call (provider_error)',
    async (_, act, code, words) => {
      const { id, client } = await started();
      act(client);
      const closed = await client.whenClosed();
      expect(closed.code).toBe(code);
      if (code !== 1009) expect(closed.reason).toContain(words);
      const ended = await statusOf(id, ['completed']);
      expect(ended.end_reason).toBe('provider_error');
      expect(ended.error).toEqual({ code: `WEB_${code}`, message: expect.stringContaining(words) });
    },
  );

  it('audio before start is 1008 and cancels the call; the page refusing the microphone cancels it with the reason', async () => {
    const wc = await webCall();
    const client = await connect(wc.socket);
    client.play('tone', 20);
    expect((await client.whenClosed()).code).toBe(1008);
    const canceled = await statusOf(wc.call.uuid, ['canceled']);
    expect(canceled).toMatchObject({ end_reason: 'canceled', error: { code: 'WEB_1008' } });

    const denied = await webCall();
    const page = await connect(denied.socket);
    page.hangUp('microphone_denied');
    expect((await page.whenClosed()).code).toBe(1000);
    const call = await statusOf(denied.call.uuid, ['canceled']);
    expect(call).toMatchObject({
      end_reason: 'canceled',
      error: { code: 'WEB_MICROPHONE_DENIED', message: 'The caller did not allow the microphone' },
    });
  });

  it('a socket that drops without a close frame ends the call: provider_error, the connection lost', async () => {
    const { id, client } = await started();
    client.ws.terminate();
    const ended = await statusOf(id, ['completed']);
    expect(ended).toMatchObject({
      end_reason: 'provider_error',
      error: { code: 'WEB_1006', message: 'The connection to the page was lost' },
    });
  });

  it('live actions: say plays on the page, mute and unmute answer, forward is 409, hangup ends the call on the page (api_hangup)', async () => {
    const { id, client } = await started();
    const marks = client.events('mark').length;
    await t.http.post(`/api/v1/calls/action/${id}/say`).send({ message: 'One moment please.' }).expect(200);
    await waitFor(async () => (client.events('mark').length > marks ? true : undefined), 10_000, 'say');
    expect(client.events('transcript').map((m) => m.text)).toContain('One moment please.');
    expect((await t.http.post(`/api/v1/calls/action/${id}/mute`).send({}).expect(200)).body.data.muted).toBe(
      true,
    );
    await t.http.post(`/api/v1/calls/action/${id}/unmute`).send({}).expect(200);
    const forward = await t.http
      .post(`/api/v1/calls/action/${id}/forward`)
      .send({ number: '+14155550123' })
      .expect(409);
    expect(forward.body).toMatchObject({ error: { code: 'CONFLICT' } });
    expect(forward.body.message).toContain('web call cannot be forwarded');
    await t.http.post(`/api/v1/calls/action/${id}/dtmf`).send({ digits: '1' }).expect(409);
    // Another workspace cannot act on it.
    await other.http.post(`/api/v1/calls/action/${id}/hangup`).send({}).expect(404);

    await t.http.post(`/api/v1/calls/action/${id}/hangup`).send({ message: 'Goodbye now.' }).expect(200);
    const closed = await client.whenClosed();
    expect(closed.code).toBe(1000);
    expect(client.events('end')).toEqual([{ type: 'end', status: 'completed', end_reason: 'api_hangup' }]);
    expect(client.events('transcript').map((m) => m.text)).toContain('Goodbye now.');
    expect((await callOf(id)).end_reason).toBe('api_hangup');
  });

  it('the live feed of a web call carries its status, transcript and end', async () => {
    const wc = await webCall();
    let text = '';
    const https = await import('node:https');
    const done = new Promise<void>((resolve, reject) => {
      const req = https.request(
        `${suite.app.url}/api/v1/calls/${wc.call.uuid}/live`,
        { headers: { Host: t.host, Authorization: `Bearer ${t.token}` }, rejectUnauthorized: false },
        (res) => {
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end();
    });
    await waitFor(async () => (text.includes('event: status') ? true : undefined));
    const client = await connect(wc.socket);
    client.start();
    await waitFor(async () => (client.events('mark').length ? true : undefined), 10_000, 'greeting');
    client.hangUp();
    await done;
    expect(text).toContain('"status":"in-progress"');
    expect(text).toContain(GREETING);
    expect(text).toMatch(/event: end\ndata: .*"end_reason":"customer_hangup"/);
  });

  it('counts toward the workspace’s concurrency limit: the call over it is 429 CONCURRENCY_LIMIT_EXCEEDED', async () => {
    const busy = suite.busy;
    const busyAgent = (await createAgent(busy, {})).agent_uuid;
    for (let i = 0; i < 6; i++)
      await busy.http.post('/api/v1/web-calls').send({ agent_uuid: busyAgent }).expect(201);
    const over = await busy.http.post('/api/v1/web-calls').send({ agent_uuid: busyAgent }).expect(429);
    expect(over.body).toMatchObject({ error: { code: 'CONCURRENCY_LIMIT_EXCEEDED' } });
    expect(over.headers['retry-after']).toBeDefined();
  });

  it('the token check tells the page what the token would do without using it; the page and its files need no API token', async () => {
    const wc = await webCall();
    const id = wc.call.uuid as string;
    const check = await t.http
      .get(`/hooks/v1/web/calls/${id}/token`)
      .set('Authorization', '')
      .set('x-web-call-token', wc.client_token)
      .expect(200);
    expect(check.body.data).toMatchObject({ call_uuid: id, expires_at: wc.expires_at });
    (await connect(wc.socket)).close();
    const used = await t.http
      .get(`/hooks/v1/web/calls/${id}/token`)
      .set('x-web-call-token', wc.client_token)
      .expect(401);
    expect(used.body.message).toBe('The web call token has already been used');
    await t.http.get(`/hooks/v1/web/calls/${id}/token`).expect(401);

    const page = await suite.app.http('any.localhost').get(`/hooks/v1/web/calls/${id}/page`).expect(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.text).toContain('/hooks/v1/web/assets/web-call.js');
    expect(page.text).not.toMatch(/https?:\/\/(?!www\.w3)/); // no CDN
    for (const [name, type] of [
      ['web-call.js', 'javascript'],
      ['web-call.css', 'text/css'],
      ['audio-worklets.js', 'javascript'],
    ]) {
      const asset = await suite.app.http('any.localhost').get(`/hooks/v1/web/assets/${name}`).expect(200);
      expect(asset.headers['content-type']).toContain(type);
    }
    await suite.app.http('any.localhost').get('/hooks/v1/web/assets/..%2Fweb-calls.module.ts').expect(404);
    const embed = await suite.app.http('any.localhost').get('/hooks/v1/web/embed.js').expect(200);
    expect(embed.headers['content-type']).toContain('javascript');
    expect(embed.text).toContain('WebCall');
  });

  it('a call ended by the agent tells the page why and closes the socket', async () => {
    const { id, client } = await started();
    await t.http
      .post(`/api/v1/calls/action/${id}/say`)
      .send({ message: 'That is all, goodbye.', end_call_after_spoken: true })
      .expect(200);
    expect((await client.whenClosed()).code).toBe(1000);
    expect(client.events('end')[0]).toMatchObject({ status: 'completed', end_reason: 'api_hangup' });
  });

  it('never writes a client token to the logs', async () => {
    const { client } = await started();
    client.hangUp();
    await client.whenClosed();
    const logs = suite.app.logs().join('\n');
    expect(logs.length).toBeGreaterThan(0);
    expect(minted.length).toBeGreaterThan(10);
    for (const token of minted) expect(logs).not.toContain(token);
    expect(logs).not.toMatch(/wct_[A-Za-z0-9_-]{20}/);
  });
});

describe('web calls: per-address limits on starting calls and opening sockets', () => {
  const suite = useTestApp({
    servers: { llm: () => LlmServer.start(), speech: () => SpeechServer.start() },
    env: (servers) => ({
      ...webCallEnv(servers, PUBLIC),
      WEB_CALL_MINTS_PER_MINUTE: '3',
      WEB_CALL_CONNECTS_PER_MINUTE: '3',
    }),
    tenants: ['t'],
  });

  it('past the limit of the minute, starting a call and opening a socket are 429 RATE_LIMIT_EXCEEDED', async () => {
    const { t } = suite;
    const agent = (await createAgent(t, {})).agent_uuid;
    let refused: any = null;
    let token = '';
    let id = '';
    // Counted per fixed minute: within 2 × limit + 1 tries one is refused, even across a minute's edge.
    for (let i = 0; i < 7 && !refused; i++) {
      const res = await t.http.post('/api/v1/web-calls').send({ agent_uuid: agent });
      if (res.status === 429) refused = res.body;
      else
        ({
          client_token: token,
          call: { uuid: id },
        } = res.body.data);
    }
    expect(refused).toMatchObject({
      error: { code: 'RATE_LIMIT_EXCEEDED' },
      message: expect.stringContaining('web call starts'),
    });
    let connectRefusal: Refusal | null = null;
    const url = `${suite.app.url.replace('https', 'wss')}/hooks/v1/web/calls/${id}?token=wct_x`;
    for (let i = 0; i < 7 && !connectRefusal; i++) {
      const r = await WebCallClient.refusal(url);
      if (r.status === 429) connectRefusal = r;
      else expect(r.status).toBe(401);
    }
    expect(connectRefusal).toMatchObject({ status: 429, body: { error: { code: 'RATE_LIMIT_EXCEEDED' } } });
    expect(token).toMatch(/^wct_/);
  });
});
