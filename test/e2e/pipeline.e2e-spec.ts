import { DataSource } from 'typeorm';
import { createTenant, createToken, TestTenant } from '../factories/workspace.factory';
import { LlmServer } from '../support/llm-server';
import { useTestApp } from '../setup/suite';

describe('request pipeline on tenant routes: scopes, bodies, idempotency', () => {
  const suite = useTestApp({
    servers: { llm: () => LlmServer.start() },
    env: ({ llm }) => ({ LLM_BASE_URL: llm.url }),
    tenants: ['t', 'other'],
  });

  const agents = async (tenant: TestTenant) =>
    (await suite.app
      .get<DataSource>(DataSource)
      .query('SELECT id FROM agents WHERE workspace_id = $1', [tenant.workspaceId])) as unknown[];

  it('refuses writes with a read-only token (403 FORBIDDEN) but lets it read', async () => {
    const reader = await createToken(suite.app, suite.t, ['read']);
    const res = await suite.app
      .http(suite.t.host, reader)
      .post('/api/v1/agents')
      .send({ name: 'x' })
      .expect(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    await suite.app.http(suite.t.host, reader).get('/api/v1/agents').expect(200);
    const writer = await createToken(suite.app, suite.t, ['write']);
    await suite.app.http(suite.t.host, writer).get('/api/v1/agents').expect(403);
  });

  it('checks the token before the body: malformed JSON with a bad token is 401, with a good one 400', async () => {
    const bad = await suite.app
      .http(suite.t.host, 'cap_nope')
      .post('/api/v1/agents')
      .set('Content-Type', 'application/json')
      .send('{"name":')
      .expect(401);
    expect(bad.body.error.code).toBe('INVALID_AUTH_TOKEN');
    const good = await suite.t.http
      .post('/api/v1/agents')
      .set('Content-Type', 'application/json')
      .send('{"name":')
      .expect(400);
    expect(good.body.error.code).toBe('BAD_REQUEST');
    const text = await suite.t.http
      .post('/api/v1/agents')
      .set('Content-Type', 'text/plain')
      .send('name=x')
      .expect(400);
    expect(text.body.error.details).toBe('Content-Type must be application/json');
    const big = await suite.t.http
      .post('/api/v1/agents')
      .send({ name: 'x', description: 'y'.repeat(1_100_000) })
      .expect(413);
    expect(big.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers the first answer again, byte for byte, for the same key and body, without doing the work twice', async () => {
    const tenant = await createTenant(suite.app);
    const first = await tenant.http
      .post('/api/v1/agents')
      .set('Idempotency-Key', 'create-agent-1')
      .send({ name: 'Once', role: 'x' })
      .expect(201);
    const again = await tenant.http
      .post('/api/v1/agents')
      .set('Idempotency-Key', 'create-agent-1')
      .send({ role: 'x', name: 'Once' })
      .expect(201);
    expect(again.text).toBe(first.text);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(await agents(tenant)).toHaveLength(1);
    // Another key is another request.
    await tenant.http
      .post('/api/v1/agents')
      .set('Idempotency-Key', 'create-agent-2')
      .send({ name: 'Once', role: 'x' })
      .expect(201);
    expect(await agents(tenant)).toHaveLength(2);
  });

  it('refuses the same key with another body (422 IDEMPOTENCY_KEY_REUSED), also on another route', async () => {
    await suite.t.http
      .post('/api/v1/agents')
      .set('Idempotency-Key', 'k-reuse')
      .send({ name: 'A' })
      .expect(201);
    const res = await suite.t.http
      .post('/api/v1/agents')
      .set('Idempotency-Key', 'k-reuse')
      .send({ name: 'B' })
      .expect(422);
    expect(res.body.error).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', field: 'Idempotency-Key' });
    const route = await suite.t.http
      .post('/api/v1/contacts')
      .set('Idempotency-Key', 'k-reuse')
      .send({ name: 'A' })
      .expect(422);
    expect(route.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('keeps keys per workspace', async () => {
    await suite.t.http
      .post('/api/v1/agents')
      .set('Idempotency-Key', 'shared-key')
      .send({ name: 'Mine' })
      .expect(201);
    const theirs = await suite.other.http
      .post('/api/v1/agents')
      .set('Idempotency-Key', 'shared-key')
      .send({ name: 'Theirs' })
      .expect(201);
    expect(theirs.body.data.name).toBe('Theirs');
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
  });

  it('does not keep error answers, so a corrected retry with the same key runs', async () => {
    const tenant = await createTenant(suite.app);
    const invalid = await tenant.http
      .post('/api/v1/agents')
      .set('Idempotency-Key', 'fix-me')
      .send({ name: '' })
      .expect(422);
    expect(invalid.body.error.field).toBe('name');
    const fixed = await tenant.http
      .post('/api/v1/agents')
      .set('Idempotency-Key', 'fix-me')
      .send({ name: 'Fixed' })
      .expect(201);
    expect(fixed.body.data.name).toBe('Fixed');
    expect(await agents(tenant)).toHaveLength(1);
  });

  it('answers 409 IDEMPOTENCY_KEY_IN_USE while the first request with the key is still running', async () => {
    const agent = (await suite.t.http.post('/api/v1/agents').send({ name: 'Slow' }).expect(201)).body.data
      .agent_uuid;
    const conversation = (
      await suite.t.http
        .post('/api/v1/conversations')
        .send({ agent_uuid: agent, channel: 'chat' })
        .expect(201)
    ).body.data.uuid;
    suite.llm.latencyMs = 800;
    try {
      const slow = suite.t.http
        .post(`/api/v1/conversations/${conversation}/messages`)
        .set('Idempotency-Key', 'slow-turn')
        .send({ content: 'hi' });
      const pending = slow.then((r) => r);
      await new Promise((r) => setTimeout(r, 250));
      const retry = await suite.t.http
        .post(`/api/v1/conversations/${conversation}/messages`)
        .set('Idempotency-Key', 'slow-turn')
        .send({ content: 'hi' })
        .expect(409);
      expect(retry.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
      const first = await pending;
      expect(first.status).toBe(201);
      const replay = await suite.t.http
        .post(`/api/v1/conversations/${conversation}/messages`)
        .set('Idempotency-Key', 'slow-turn')
        .send({ content: 'hi' })
        .expect(201);
      expect(replay.text).toBe(first.text);
    } finally {
      suite.llm.latencyMs = 0;
    }
    const messages = (await suite.t.http.get(`/api/v1/conversations/${conversation}/messages`).expect(200))
      .body.data.items;
    expect(messages.filter((m: { sender: string }) => m.sender === 'customer')).toHaveLength(1);
  });

  it('lets a key be used again once it has expired, and validates the key', async () => {
    const db = suite.app.get<DataSource>(DataSource);
    await suite.t.http
      .post('/api/v1/agents')
      .set('Idempotency-Key', 'old-key')
      .send({ name: 'Old' })
      .expect(201);
    await db.query(
      `UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE workspace_id = $1 AND key = 'old-key'`,
      [suite.t.workspaceId],
    );
    const fresh = await suite.t.http
      .post('/api/v1/agents')
      .set('Idempotency-Key', 'old-key')
      .send({ name: 'New' })
      .expect(201);
    expect(fresh.body.data.name).toBe('New');
    const long = await suite.t.http
      .post('/api/v1/agents')
      .set('Idempotency-Key', 'k'.repeat(256))
      .send({ name: 'x' })
      .expect(422);
    expect(long.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'Idempotency-Key' });
  });
});
