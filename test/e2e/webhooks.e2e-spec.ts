import { client } from '../setup/test-app';
import { createTenant } from '../factories/workspace.factory';
import { createWebhook } from '../factories/webhook.factory';
import { MISSING } from '../support/ids';
import { useTestApp } from '../setup/suite';

describe('Workspace webhooks: configuration', () => {
  const suite = useTestApp({ tenants: ['t', 'other'] });

  const body = (over: Record<string, unknown> = {}) => ({
    url: 'https://hooks.example.com/events',
    events: ['conversation_status', 'conversation_end_report'],
    ...over,
  });

  it('creates, reads, lists, changes and deletes; the secret is never returned', async () => {
    const res = await suite.t.http
      .post('/api/v1/webhooks')
      .send(body({ secret_key: 'whsec_c2VjcmV0LXZhbHVlLTE=' }));
    expect(res.status).toBe(201);
    const w = res.body.data;
    expect(w).toEqual({
      uuid: expect.any(String),
      webhook_uuid: w.uuid,
      url: 'https://hooks.example.com/events',
      events: ['conversation_status', 'conversation_end_report'],
      is_active: true,
      has_secret: true,
      previous_secret_expires_at: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: expect.any(String),
    });

    const read = await suite.t.http.get(`/api/v1/webhooks/${w.uuid}`).expect(200);
    expect(read.body.data).toEqual(w);
    const list = await suite.t.http.get('/api/v1/webhooks').expect(200);
    expect(list.body.data.items.map((i: { uuid: string }) => i.uuid)).toContain(w.uuid);
    expect(list.body.data.pagination).toMatchObject({ page: 1, per_page: 20 });

    const patched = await suite.t.http
      .patch(`/api/v1/webhooks/${w.uuid}`)
      .send({ is_active: false, events: ['intent_call'], secret_key: null })
      .expect(200);
    expect(patched.body.data).toMatchObject({
      is_active: false,
      events: ['intent_call'],
      has_secret: false,
      url: w.url,
    });

    for (const r of [res, read, list, patched]) expect(JSON.stringify(r.body)).not.toContain('c2VjcmV0');

    const del = await suite.t.http.delete(`/api/v1/webhooks/${w.uuid}`).expect(200);
    expect(del.body.data).toBeNull();
    const gone = await suite.t.http.get(`/api/v1/webhooks/${w.uuid}`).expect(404);
    expect(gone.body.error.code).toBe('RESOURCE_NOT_FOUND');
  });

  it.each([
    [{ url: undefined }, 'VALIDATION_ERROR', 'url'],
    [{ url: 'not a url' }, 'INVALID_FORMAT', 'url'],
    [{ url: 'ftp://hooks.example.com/x' }, 'INVALID_FORMAT', 'url'],
    [{ events: undefined }, 'VALIDATION_ERROR', 'events'],
    [{ events: [] }, 'VALIDATION_ERROR', 'events'],
    [{ events: ['order_created'] }, 'INVALID_FORMAT', 'events'],
    [{ events: 'conversation_status' }, 'INVALID_FORMAT', 'events'],
    [{ is_active: 'yes' }, 'INVALID_FORMAT', 'is_active'],
    [{ secret_key: 42 }, 'INVALID_FORMAT', 'secret_key'],
  ])('refuses %j with %s on %s', async (over, code, field) => {
    const res = await suite.t.http.post('/api/v1/webhooks').send(body(over));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code, field });
  });

  it('refuses bad changes, bad uuids and unknown webhooks', async () => {
    const w = await createWebhook(suite.t, body());
    const bad = await suite.t.http.patch(`/api/v1/webhooks/${w.uuid}`).send({ url: null });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'url' });
    const badEvents = await suite.t.http.patch(`/api/v1/webhooks/${w.uuid}`).send({ events: ['nope'] });
    expect(badEvents.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'events' });
    const badUuid = await suite.t.http.get('/api/v1/webhooks/not-a-uuid');
    expect(badUuid.status).toBe(422);
    expect(badUuid.body.error).toMatchObject({ code: 'INVALID_UUID', field: 'uuid' });
    for (const r of [
      suite.t.http.get(`/api/v1/webhooks/${MISSING}`),
      suite.t.http.patch(`/api/v1/webhooks/${MISSING}`).send({ is_active: true }),
      suite.t.http.delete(`/api/v1/webhooks/${MISSING}`),
      suite.t.http.post(`/api/v1/webhooks/${MISSING}/rotate-secret`).send({}),
      suite.t.http.post(`/api/v1/webhooks/deliveries/${MISSING}/redeliver`),
    ])
      expect((await r).body.error.code).toBe('RESOURCE_NOT_FOUND');
    const badFilter = await suite.t.http.get('/api/v1/webhooks/deliveries?status=lost');
    expect(badFilter.status).toBe(422);
    expect(badFilter.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'status' });
    const badFrom = await suite.t.http.get('/api/v1/webhooks/deliveries?from=yesterday');
    expect(badFrom.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'from' });
    const badHook = await suite.t.http.get('/api/v1/webhooks/deliveries?webhook_uuid=abc');
    expect(badHook.body.error).toMatchObject({ code: 'INVALID_UUID', field: 'webhook_uuid' });
  });

  it('rotates the secret: the new one is shown once, the old one keeps signing for 24 hours', async () => {
    const w = await createWebhook(suite.t, body({ secret_key: 'first-secret-value' }));
    const given = await suite.t.http
      .post(`/api/v1/webhooks/${w.uuid}/rotate-secret`)
      .send({ secret_key: 'second-secret-value' })
      .expect(200);
    expect(given.body.data).toEqual({
      webhook_uuid: w.uuid,
      secret_key: 'second-secret-value',
      previous_secret_expires_at: expect.any(String),
    });
    const overlap = Date.parse(given.body.data.previous_secret_expires_at) - Date.now();
    expect(overlap).toBeGreaterThan(23.9 * 3600_000);
    expect(overlap).toBeLessThanOrEqual(24 * 3600_000);
    const generated = await suite.t.http.post(`/api/v1/webhooks/${w.uuid}/rotate-secret`).expect(200);
    expect(generated.body.data.secret_key).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const read = await suite.t.http.get(`/api/v1/webhooks/${w.uuid}`).expect(200);
    expect(read.body.data.has_secret).toBe(true);
    expect(JSON.stringify(read.body)).not.toMatch(/secret-value|whsec_/);
    const short = await suite.t.http
      .post(`/api/v1/webhooks/${w.uuid}/rotate-secret`)
      .send({ secret_key: 'x' });
    expect(short.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'secret_key' });
  });

  it('rotates an agent webhook secret', async () => {
    const agent = (await suite.t.http.post('/api/v1/agents').send({ name: 'Hooked' }).expect(201)).body.data;
    const added = await suite.t.http
      .post(`/api/v1/agents/${agent.agent_uuid}/webhooks`)
      .send(body({ secret_key: 'agent-secret-one', is_active: true }))
      .expect(201);
    const hook = added.body.data.webhooks[0].webhook_uuid;
    const path = `/api/v1/agents/${agent.agent_uuid}/webhooks/${hook}/rotate-secret`;
    const res = await suite.t.http.post(path).send({ secret_key: 'agent-secret-two' }).expect(200);
    expect(res.body.data).toMatchObject({ webhook_uuid: hook, secret_key: 'agent-secret-two' });
    expect(res.body.data.previous_secret_expires_at).toEqual(expect.any(String));
    const viewed = await suite.t.http.get(`/api/v1/agents/${agent.agent_uuid}`).expect(200);
    expect(JSON.stringify(viewed.body)).not.toContain('agent-secret');
    expect(
      (
        await suite.t.http
          .post(`/api/v1/agents/${agent.agent_uuid}/webhooks/${MISSING}/rotate-secret`)
          .send({})
      ).status,
    ).toBe(404);
    const bad = await suite.t.http
      .post(`/api/v1/agents/${agent.agent_uuid}/webhooks/nope/rotate-secret`)
      .send({});
    expect(bad.body.error).toMatchObject({ code: 'INVALID_UUID', field: 'webhookUuid' });
    // Another workspace's token gets the same answer as an unknown webhook.
    const foreign = await suite.other.http.post(path).send({});
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('RESOURCE_NOT_FOUND');
  });

  it('answers 404 to another workspace on every route and keeps lists apart', async () => {
    const w = await createWebhook(suite.t, body());
    for (const r of [
      suite.other.http.get(`/api/v1/webhooks/${w.uuid}`),
      suite.other.http.patch(`/api/v1/webhooks/${w.uuid}`).send({ is_active: false }),
      suite.other.http.delete(`/api/v1/webhooks/${w.uuid}`),
      suite.other.http.post(`/api/v1/webhooks/${w.uuid}/rotate-secret`).send({}),
    ]) {
      const res = await r;
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('RESOURCE_NOT_FOUND');
    }
    const list = await suite.other.http.get('/api/v1/webhooks').expect(200);
    expect(list.body.data.items.map((i: { uuid: string }) => i.uuid)).not.toContain(w.uuid);
    expect((await suite.t.http.get(`/api/v1/webhooks/${w.uuid}`).expect(200)).body.data.is_active).toBe(true);
  });

  it('stops at 20 workspace webhooks', async () => {
    const own = await createTenant(suite.app);
    for (let i = 0; i < 20; i++) await createWebhook(own, body({ url: `https://hooks.example.com/${i}` }));
    const res = await own.http.post('/api/v1/webhooks').send(body());
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('WEBHOOK_LIMIT_REACHED');
  });

  it('documents every webhook route in the OpenAPI document', async () => {
    const doc = (await client(suite.app.url, 'localhost').get('/docs/openapi.json').expect(200)).body;
    const routes: Array<[string, string]> = [
      ['/api/v1/webhooks', 'get'],
      ['/api/v1/webhooks', 'post'],
      ['/api/v1/webhooks/{uuid}', 'get'],
      ['/api/v1/webhooks/{uuid}', 'patch'],
      ['/api/v1/webhooks/{uuid}', 'delete'],
      ['/api/v1/webhooks/{uuid}/rotate-secret', 'post'],
      ['/api/v1/webhooks/deliveries', 'get'],
      ['/api/v1/webhooks/deliveries/{uuid}/redeliver', 'post'],
      ['/api/v1/agents/{uuid}/webhooks/{webhookUuid}/rotate-secret', 'post'],
    ];
    for (const [path, method] of routes) {
      const op = doc.paths[path]?.[method];
      expect({ path, method, summary: op?.summary }).toEqual({ path, method, summary: expect.any(String) });
      expect(op.tags.length).toBeGreaterThan(0);
    }
  });
});
