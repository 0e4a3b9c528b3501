import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import { RetryPolicy } from '@/modules/events/retry-policy';
import { createTenant, TestTenant } from '../factories/workspace.factory';
import { createWebhook, emitEvent } from '../factories/webhook.factory';
import { waitFor } from '../support/wait';
import { Received, WebhookReceiver } from '../support/webhook-receiver';
import { useTestApp } from '../setup/suite';

jest.setTimeout(60_000);

const ALL = [
  'conversation_status',
  'conversation_update',
  'conversation_end_report',
  'voice_evaluation',
  'text_evaluation',
  'intent_call',
];

describe('Webhook delivery', () => {
  const suite = useTestApp({
    servers: { rx: () => WebhookReceiver.start() },
    database: 'webhooks',
    tenants: ['t', 'other'],
  });
  let policy: RetryPolicy;
  let db: DataSource;
  beforeAll(() => {
    policy = suite.app.get<RetryPolicy>(RetryPolicy);
    db = suite.app.get<DataSource>(DataSource);
  });
  afterEach(() => policy.reset());

  const deliveriesOf = async (tenant: TestTenant, webhookId: string, query = '') =>
    (await tenant.http.get(`/api/v1/webhooks/deliveries?webhook_uuid=${webhookId}${query}`).expect(200)).body
      .data.items;
  const settled = (tenant: TestTenant, webhookId: string, count = 1) =>
    waitFor(
      async () => {
        const items = await deliveriesOf(tenant, webhookId);
        return items.length >= count && items.every((d: { status: string }) => d.status !== 'pending')
          ? items
          : undefined;
      },
      30_000,
      'deliveries settled',
    );
  const arrivals = (path: string, count: number, timeoutMs = 15_000) =>
    waitFor(
      async () => (suite.rx.at(path).length >= count ? suite.rx.at(path) : undefined),
      timeoutMs,
      `${count} at ${path}`,
    );
  const headersOf = (r: Received) => ({
    'webhook-id': r.headers['webhook-id'] as string,
    'webhook-timestamp': r.headers['webhook-timestamp'] as string,
    'webhook-signature': r.headers['webhook-signature'] as string,
  });

  it('delivers a signed body that an independent implementation verifies (whsec_ and plain secrets)', async () => {
    const whsec = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const a = await createWebhook(suite.t, { url: suite.rx.url('/sig-a'), events: ALL, secret_key: whsec });
    const b = await createWebhook(suite.t, {
      url: suite.rx.url('/sig-b'),
      events: ['text_evaluation'],
      secret_key: 'plain-pass',
    });
    await createWebhook(suite.t, { url: suite.rx.url('/sig-none'), events: ['intent_call'] });
    await emitEvent(suite.app, suite.t, 'text_evaluation', { uuid: 'rec-1', value: true });

    const [ra] = await arrivals('/sig-a', 1);
    const [rb] = await arrivals('/sig-b', 1);
    const payload = new Webhook(whsec).verify(ra.body, headersOf(ra)) as Record<string, unknown>;
    expect(new Webhook('plain-pass', { format: 'raw' }).verify(rb.body, headersOf(rb))).toEqual(payload);
    expect(payload).toEqual({
      type: 'text_evaluation',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      workspace: { uuid: suite.t.workspaceId, slug: suite.t.slug },
      data: { uuid: 'rec-1', value: true },
    });
    expect(ra.headers['content-type']).toBe('application/json');
    // A sized body, not chunked: some receivers read a chunked body as empty.
    expect(ra.headers['content-length']).toBe(String(Buffer.byteLength(ra.body)));
    expect(ra.headers['transfer-encoding']).toBeUndefined();
    expect(ra.headers['webhook-id']).toBe(rb.headers['webhook-id']);
    expect(Math.abs(Number(ra.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    expect(() =>
      new Webhook('whsec_' + Buffer.from('wrong').toString('base64')).verify(ra.body, headersOf(ra)),
    ).toThrow();

    const [d] = await settled(suite.t, a.uuid);
    expect(d).toMatchObject({
      event_uuid: ra.headers['webhook-id'],
      type: 'text_evaluation',
      webhook_uuid: a.uuid,
      webhook_kind: 'workspace',
      url: suite.rx.url('/sig-a'),
      status: 'succeeded',
      attempt_count: 1,
      next_attempt_at: null,
      last_status_code: 200,
      last_error: null,
      delivered_at: expect.any(String),
    });
    expect(d.attempts).toEqual([
      {
        attempt: 1,
        succeeded: true,
        status_code: 200,
        duration_ms: expect.any(Number),
        response_excerpt: 'ok',
        error: null,
        next_retry_at: null,
        created_at: expect.any(String),
      },
    ]);
    expect((await settled(suite.t, b.uuid))[0]).toMatchObject({
      status: 'succeeded',
      event_uuid: d.event_uuid,
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(suite.rx.at('/sig-none')).toHaveLength(0);
  });

  it('delivers conversation events to workspace webhooks and to the webhooks of that agent only', async () => {
    const agent = (await suite.t.http.post('/api/v1/agents').send({ name: 'Desk' }).expect(201)).body.data
      .agent_uuid;
    const otherAgent = (await suite.t.http.post('/api/v1/agents').send({ name: 'Other' }).expect(201)).body
      .data.agent_uuid;
    await suite.t.http
      .post(`/api/v1/agents/${agent}/webhooks`)
      .send({ url: suite.rx.url('/agent-hook'), events: ['conversation_update'], is_active: true })
      .expect(201);
    await suite.t.http
      .post(`/api/v1/agents/${otherAgent}/webhooks`)
      .send({ url: suite.rx.url('/other-agent-hook'), events: ALL, is_active: true })
      .expect(201);
    await createWebhook(suite.t, {
      url: suite.rx.url('/ws-hook'),
      events: ['conversation_status', 'conversation_end_report'],
    });

    const conv = await suite.t.http
      .post('/api/v1/conversations')
      .send({ agent_uuid: agent, channel: 'chat' })
      .expect(201);
    const id = conv.body.data.uuid;
    await suite.t.http
      .post(`/api/v1/conversations/${id}/messages`)
      .send({ content: 'Hello there' })
      .expect(201);
    await suite.t.http.post(`/api/v1/conversations/${id}/close`).expect(200);

    const updates = await arrivals('/agent-hook', 1);
    const update = JSON.parse(updates[0].body);
    expect(update.type).toBe('conversation_update');
    expect(JSON.stringify(update.data)).toContain('Hello there');
    const statuses = await waitFor(
      async () => {
        const got = suite.rx.at('/ws-hook').map((r) => JSON.parse(r.body));
        return got.some((e) => e.type === 'conversation_end_report') ? got : undefined;
      },
      20_000,
      'end report',
    );
    expect(statuses.map((e) => e.type)).toContain('conversation_status');
    const report = statuses.find((e) => e.type === 'conversation_end_report');
    expect(report.workspace.slug).toBe(suite.t.slug);
    expect(suite.rx.at('/agent-hook').every((r) => JSON.parse(r.body).type === 'conversation_update')).toBe(
      true,
    );
    expect(suite.rx.at('/other-agent-hook')).toHaveLength(0);
  });

  it('delivers one after another over one kept-alive connection', async () => {
    // A receiver of its own: no other test's delivery shares its connections.
    const rx = await WebhookReceiver.start();
    try {
      const hook = await createWebhook(suite.t, { url: rx.url('/kept-alive'), events: ['intent_call'] });
      for (let i = 1; i <= 5; i += 1) {
        await emitEvent(suite.app, suite.t, 'intent_call', { i });
        await waitFor(
          async () => (rx.at('/kept-alive').length >= i ? true : undefined),
          15_000,
          `delivery ${i}`,
        );
      }
      await settled(suite.t, hook.uuid, 5);
      // One connection (a second only if a gap between two deliveries outlasted the 4 s an idle one is kept).
      expect(new Set(rx.at('/kept-alive').map((r) => r.remotePort)).size).toBeLessThan(3);
      await suite.t.http.delete(`/api/v1/webhooks/${hook.uuid}`).expect(200);
    } finally {
      await rx.close();
    }
  });

  it('routes events kept between changes: a webhook added, paused or resumed applies to the very next event', async () => {
    const agent = (await suite.t.http.post('/api/v1/agents').send({ name: 'Kept' }).expect(201)).body.data
      .agent_uuid;
    const say = async (content: string) => {
      const conv = await suite.t.http
        .post('/api/v1/conversations')
        .send({ agent_uuid: agent, channel: 'chat' })
        .expect(201);
      await suite.t.http
        .post(`/api/v1/conversations/${conv.body.data.uuid}/messages`)
        .send({ content })
        .expect(201);
    };
    const seen = (path: string, text: string) =>
      suite.rx
        .at(path)
        .filter((r) => JSON.parse(r.body).type === 'conversation_update' && r.body.includes(text));
    // Events routed (to nobody) and the routes kept; then a webhook: the next event reaches it.
    await say('Before any hook');
    await say('Still no hook');
    const hook = await createWebhook(suite.t, {
      url: suite.rx.url('/kept-hook'),
      events: ['conversation_update'],
    });
    await say('After the hook');
    await waitFor(
      async () => (seen('/kept-hook', 'After the hook').length ? true : undefined),
      20_000,
      'first',
    );
    expect(seen('/kept-hook', 'hook').every((r) => !r.body.includes('Before any hook'))).toBe(true);
    // Paused: nothing more; resumed: delivered again.
    await suite.t.http.patch(`/api/v1/webhooks/${hook.uuid}`).send({ is_active: false }).expect(200);
    await say('While paused');
    await suite.t.http.patch(`/api/v1/webhooks/${hook.uuid}`).send({ is_active: true }).expect(200);
    await say('Resumed');
    await waitFor(async () => (seen('/kept-hook', 'Resumed').length ? true : undefined), 20_000, 'resumed');
    expect(seen('/kept-hook', 'While paused')).toHaveLength(0);
  });

  it('retries non-2xx answers on a scaled schedule, honouring Retry-After, with a stable webhook-id', async () => {
    policy.configure({ baseMs: 200, factor: 2, jitter: 0, maxAttempts: 9 });
    suite.rx.on('/flaky', (_r, n) =>
      n === 1
        ? { status: 503, headers: { 'retry-after': '1' }, body: 'busy' }
        : n === 2
          ? { status: 500, body: 'boom' }
          : n === 3
            ? { status: 429, body: 'slow down' }
            : { status: 204 },
    );
    const w = await createWebhook(suite.t, {
      url: suite.rx.url('/flaky'),
      events: ['intent_call'],
      secret_key: 'retry-secret',
    });
    await emitEvent(suite.app, suite.t, 'intent_call', { intent: 'refund' });
    const got = await arrivals('/flaky', 4, 20_000);
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(1);
    for (const r of got) new Webhook('retry-secret', { format: 'raw' }).verify(r.body, headersOf(r));
    // Retry-After: 1 is honoured (at least a second), the scaled backoff is not.
    expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(900);

    const [d] = await settled(suite.t, w.uuid);
    expect(d.status).toBe('succeeded');
    expect(d.attempt_count).toBe(4);
    expect(d.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([503, 500, 429, 204]);
    expect(d.attempts.map((a: { succeeded: boolean }) => a.succeeded)).toEqual([false, false, false, true]);
    expect(d.attempts[0]).toMatchObject({ response_excerpt: 'busy', error: 'HTTP 503' });
    expect(d.attempts[0].next_retry_at).toEqual(expect.any(String));
    expect(d.attempts[3].next_retry_at).toBeNull();
  });

  it('gives up after the last attempt of the schedule', async () => {
    policy.configure({ baseMs: 50, factor: 2, jitter: 0, maxAttempts: 3 });
    suite.rx.on('/down', () => ({ status: 500, body: 'down' }));
    const w = await createWebhook(suite.t, { url: suite.rx.url('/down'), events: ['intent_call'] });
    await emitEvent(suite.app, suite.t, 'intent_call', {});
    const [d] = await settled(suite.t, w.uuid);
    expect(d).toMatchObject({
      status: 'failed',
      attempt_count: 3,
      last_status_code: 500,
      next_attempt_at: null,
    });
    expect(suite.rx.at('/down')).toHaveLength(3);
    const failed = await suite.t.http
      .get(`/api/v1/webhooks/deliveries?status=failed&type=intent_call`)
      .expect(200);
    expect(failed.body.data.items.map((i: { uuid: string }) => i.uuid)).toContain(d.uuid);
  });

  it('treats 3xx as a failure and never follows it', async () => {
    policy.configure({ maxAttempts: 1 });
    suite.rx.on('/moved', () => ({ status: 302, headers: { location: suite.rx.url('/moved-target') } }));
    const w = await createWebhook(suite.t, { url: suite.rx.url('/moved'), events: ['intent_call'] });
    await emitEvent(suite.app, suite.t, 'intent_call', {});
    const [d] = await settled(suite.t, w.uuid);
    expect(d).toMatchObject({ status: 'failed', last_status_code: 302 });
    expect(d.attempts[0].error).toMatch(/redirect to .*\/moved-target not followed/);
    expect(suite.rx.at('/moved-target')).toHaveLength(0);
  });

  it('disables the subscription on 410 Gone (workspace and agent webhooks)', async () => {
    suite.rx.on('/gone', () => ({ status: 410, body: 'gone' }));
    const w = await createWebhook(suite.t, { url: suite.rx.url('/gone'), events: ['intent_call'] });
    const agent = (await suite.t.http.post('/api/v1/agents').send({ name: 'Gone' }).expect(201)).body.data
      .agent_uuid;
    const added = await suite.t.http
      .post(`/api/v1/agents/${agent}/webhooks`)
      .send({ url: suite.rx.url('/gone'), events: ['intent_call'], is_active: true })
      .expect(201);
    const agentHook = added.body.data.webhooks[0].webhook_uuid;
    await emitEvent(suite.app, suite.t, 'intent_call', {}, agent);
    const [d] = await settled(suite.t, w.uuid);
    expect(d).toMatchObject({ status: 'failed', attempt_count: 1, last_status_code: 410 });
    const [ad] = await settled(suite.t, agentHook);
    expect(ad).toMatchObject({ status: 'failed', webhook_kind: 'agent', last_status_code: 410 });
    expect((await suite.t.http.get(`/api/v1/webhooks/${w.uuid}`).expect(200)).body.data.is_active).toBe(
      false,
    );
    const view = (await suite.t.http.get(`/api/v1/agents/${agent}`).expect(200)).body.data;
    expect(view.webhooks[0].is_active).toBe(false);

    const before = suite.rx.at('/gone').length;
    await emitEvent(suite.app, suite.t, 'intent_call', {}, agent);
    await new Promise((r) => setTimeout(r, 500));
    expect(suite.rx.at('/gone')).toHaveLength(before);
  });

  it('gives up on a receiver after the 10 second deadline', async () => {
    policy.configure({ maxAttempts: 1 });
    suite.rx.on('/hang', () => ({ status: 200, delayMs: 15_000 }));
    const w = await createWebhook(suite.t, { url: suite.rx.url('/hang'), events: ['intent_call'] });
    await emitEvent(suite.app, suite.t, 'intent_call', {});
    const [d] = await settled(suite.t, w.uuid);
    expect(d.status).toBe('failed');
    expect(d.attempts[0]).toMatchObject({ status_code: null, succeeded: false });
    expect(d.attempts[0].error).toBe('timeout');
    expect(d.attempts[0].duration_ms).toBeGreaterThanOrEqual(9_900);
  });

  it('redelivers a finished delivery with the same webhook-id, and refuses one still pending', async () => {
    const w = await createWebhook(suite.t, { url: suite.rx.url('/again'), events: ['intent_call'] });
    await emitEvent(suite.app, suite.t, 'intent_call', { n: 1 });
    const [d] = await settled(suite.t, w.uuid);
    const res = await suite.t.http.post(`/api/v1/webhooks/deliveries/${d.uuid}/redeliver`).expect(200);
    expect(res.body.data).toMatchObject({ uuid: d.uuid, status: 'pending' });
    const got = await arrivals('/again', 2);
    expect(got[1].headers['webhook-id']).toBe(got[0].headers['webhook-id']);
    const [after] = await settled(suite.t, w.uuid);
    expect(after).toMatchObject({ status: 'succeeded', attempt_count: 2 });
    expect(after.attempts).toHaveLength(2);

    suite.rx.on('/later', () => ({ status: 503, headers: { 'retry-after': '3600' } }));
    const p = await createWebhook(suite.t, { url: suite.rx.url('/later'), events: ['intent_call'] });
    await emitEvent(suite.app, suite.t, 'intent_call', {});
    await arrivals('/later', 1);
    const pending = await waitFor(async () => {
      const [x] = await deliveriesOf(suite.t, p.uuid);
      return x?.attempt_count === 1 ? x : undefined;
    });
    expect(pending.status).toBe('pending');
    expect(Date.parse(pending.next_attempt_at) - Date.now()).toBeGreaterThan(3500_000);
    const conflict = await suite.t.http.post(`/api/v1/webhooks/deliveries/${pending.uuid}/redeliver`);
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('CONFLICT');
    const foreign = await suite.other.http.post(`/api/v1/webhooks/deliveries/${d.uuid}/redeliver`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('RESOURCE_NOT_FOUND');
  });

  it('signs with the old and the new secret for the overlap after a rotation', async () => {
    const oldSecret = 'whsec_' + Buffer.from('old-secret-bytes-0123456789').toString('base64');
    const w = await createWebhook(suite.t, {
      url: suite.rx.url('/rotated'),
      events: ['intent_call'],
      secret_key: oldSecret,
    });
    const rotated = await suite.t.http.post(`/api/v1/webhooks/${w.uuid}/rotate-secret`).expect(200);
    const newSecret = rotated.body.data.secret_key as string;
    await emitEvent(suite.app, suite.t, 'intent_call', {});
    const [r] = await arrivals('/rotated', 1);
    const signatures = (r.headers['webhook-signature'] as string).split(' ');
    expect(signatures).toHaveLength(2);
    expect(signatures.every((s) => s.startsWith('v1,'))).toBe(true);
    // A receiver still on the old secret and one already on the new both verify.
    expect(() => new Webhook(oldSecret).verify(r.body, headersOf(r))).not.toThrow();
    expect(() => new Webhook(newSecret).verify(r.body, headersOf(r))).not.toThrow();

    // Once the overlap is over only the new secret signs.
    await db.query(
      `UPDATE webhooks SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1`,
      [w.uuid],
    );
    await emitEvent(suite.app, suite.t, 'intent_call', {});
    const [, r2] = await arrivals('/rotated', 2);
    expect((r2.headers['webhook-signature'] as string).split(' ')).toHaveLength(1);
    expect(() => new Webhook(oldSecret).verify(r2.body, headersOf(r2))).toThrow();
    expect(() => new Webhook(newSecret).verify(r2.body, headersOf(r2))).not.toThrow();
  });

  it('never shows a secret in answers, the delivery log or stored attempts', async () => {
    const secret = 'whsec_' + Buffer.from('never-ever-shown-secret').toString('base64');
    const w = await createWebhook(suite.t, {
      url: suite.rx.url('/quiet'),
      events: ['intent_call'],
      secret_key: secret,
    });
    await emitEvent(suite.app, suite.t, 'intent_call', {});
    await settled(suite.t, w.uuid);
    const bodies = [
      (await suite.t.http.get(`/api/v1/webhooks/${w.uuid}`)).text,
      (await suite.t.http.get('/api/v1/webhooks?per_page=100')).text,
      (await suite.t.http.get('/api/v1/webhooks/deliveries?per_page=100')).text,
      (await suite.t.http.patch(`/api/v1/webhooks/${w.uuid}`).send({ is_active: true })).text,
    ];
    const stored = JSON.stringify(
      await db.query(
        `SELECT d.*, a.* FROM webhook_deliveries d JOIN webhook_delivery_attempts a ON a.delivery_id = d.id`,
      ),
    );
    for (const text of [...bodies, stored]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice(6));
    }
  });

  it('keeps one workspace’s deliveries invisible to another', async () => {
    const w = await createWebhook(suite.t, { url: suite.rx.url('/mine'), events: ['intent_call'] });
    await emitEvent(suite.app, suite.t, 'intent_call', {});
    const [d] = await settled(suite.t, w.uuid);
    const theirs = await suite.other.http.get('/api/v1/webhooks/deliveries?per_page=100').expect(200);
    expect(theirs.body.data.items).toHaveLength(0);
    const filtered = await suite.other.http
      .get(`/api/v1/webhooks/deliveries?webhook_uuid=${w.uuid}`)
      .expect(200);
    expect(filtered.body.data.items).toHaveLength(0);
    expect(d.uuid).toEqual(expect.any(String));
  });

  it('filters the log by time', async () => {
    const w = await createWebhook(suite.t, { url: suite.rx.url('/timed'), events: ['intent_call'] });
    await emitEvent(suite.app, suite.t, 'intent_call', {});
    const [d] = await settled(suite.t, w.uuid);
    const before = new Date(Date.parse(d.created_at) - 1).toISOString();
    const after = new Date(Date.parse(d.created_at) + 1).toISOString();
    expect(await deliveriesOf(suite.t, w.uuid, `&from=${before}&to=${after}`)).toHaveLength(1);
    expect(await deliveriesOf(suite.t, w.uuid, `&from=${after}`)).toHaveLength(0);
    expect(await deliveriesOf(suite.t, w.uuid, `&to=${before}`)).toHaveLength(0);
  });

  it('recovers a delivery whose worker died mid-attempt, and an event whose notification was lost', async () => {
    const w = await createWebhook(suite.t, { url: suite.rx.url('/crash'), events: ['intent_call'] });
    await emitEvent(suite.app, suite.t, 'intent_call', {});
    const [d] = await settled(suite.t, w.uuid);
    // As a worker that took the job and died leaves it: pending, its lease run out, no job in the queue.
    await db.query(
      `UPDATE webhook_deliveries SET status = 'pending', locked_until = now() - interval '1 second',
              next_attempt_at = now() - interval '5 seconds', round_start = attempt_count
        WHERE id = $1`,
      [d.uuid],
    );
    const got = await arrivals('/crash', 2, 15_000);
    expect(got[1].headers['webhook-id']).toBe(got[0].headers['webhook-id']);

    // An outbox row written without its NOTIFY is picked up by the sweep.
    await db.query(
      `INSERT INTO outbox_events (id, workspace_id, type, agent_id, data) VALUES (gen_random_uuid(), $1, 'intent_call', NULL, '{}')`,
      [suite.t.workspaceId],
    );
    await arrivals('/crash', 3, 15_000);
  });

  it('holds each workspace to 100 deliveries a second, drops none, and keeps a slow receiver from blocking others', async () => {
    const fast = await createTenant(suite.app);
    const slow = await createTenant(suite.app);
    const bystander = await createTenant(suite.app);
    suite.rx.on('/slow', () => ({ status: 200, delayMs: 2_000 }));
    await createWebhook(fast, { url: suite.rx.url('/fast'), events: ['intent_call'] });
    const slowHook = await createWebhook(slow, { url: suite.rx.url('/slow'), events: ['intent_call'] });
    await createWebhook(bystander, { url: suite.rx.url('/bystander'), events: ['intent_call'] });

    const outbox = suite.app.get<DataSource>(DataSource);
    const many = (tenant: TestTenant, n: number) =>
      outbox.query(
        `WITH ins AS (INSERT INTO outbox_events (id, workspace_id, type, agent_id, data)
           SELECT gen_random_uuid(), $1, 'intent_call', NULL, jsonb_build_object('n', g) FROM generate_series(1, $2) g
           RETURNING id) SELECT pg_notify('outbox_events', '')`,
        [tenant.workspaceId, n],
      );
    await many(slow, 60);
    await new Promise((r) => setTimeout(r, 300));
    await many(fast, 250);
    await emitEvent(suite.app, bystander, 'intent_call', {});

    const fastGot = await arrivals('/fast', 250, 20_000);
    const [bystanderGot] = await arrivals('/bystander', 1);
    // The slow workspace still has deliveries waiting when the others are through.
    const slowPending = await deliveriesOf(slow, slowHook.uuid, '&status=pending&per_page=100');
    expect(slowPending.length).toBeGreaterThan(0);
    expect(bystanderGot.at).toBeLessThan(Date.now());

    const ids = fastGot.map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(250);
    // The limiter lets 100 start in any second, so 250 take at least two seconds; arrivals 100 apart are about a
    // second apart (slack for the varying hop from limiter to receiver on a busy machine).
    const times = fastGot.map((r) => r.at).sort((x, y) => x - y);
    expect(times[249] - times[0]).toBeGreaterThanOrEqual(1800);
    for (let i = 0; i + 100 < times.length; i++)
      expect(times[i + 100] - times[i]).toBeGreaterThanOrEqual(700);

    await arrivals('/slow', 60, 30_000);
  });
});
