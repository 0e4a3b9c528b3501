import { DataSource } from 'typeorm';
import { SecretBox } from '@/common/crypto/secret-box';
import { AgentWebhooksService } from '@/modules/agents/collections/agent-webhooks.service';
import { createTenant, TestTenant } from '../factories/workspace.factory';
import { createAgent } from '../factories/agent.factory';
import { useTestApp } from '../setup/suite';

describe('Agents: webhooks', () => {
  const suite = useTestApp({ tenants: ['tenant'] });

  const base = (a: any) => `/api/v1/agents/${a.agent_uuid}/webhooks`;
  const hook = (over: Record<string, unknown> = {}) => ({
    url: 'https://hooks.example.com/agent',
    events: ['conversation_status'],
    ...over,
  });

  it('creates a webhook with every event of the contract; the secret is encrypted and never returned', async () => {
    const a = await createAgent(suite.tenant);
    const events = [
      'conversation_status',
      'conversation_update',
      'conversation_end_report',
      'voice_evaluation',
      'text_evaluation',
      'intent_call',
    ];
    const res = await suite.tenant.http.post(base(a)).send(hook({ events, secret_key: 'whsec_supersecret' }));
    expect(res.status).toBe(201);
    const w = res.body.data.webhooks[0];
    expect(w).toEqual({
      uuid: w.webhook_uuid,
      webhook_uuid: expect.any(String),
      url: 'https://hooks.example.com/agent',
      events,
      is_active: true,
      has_secret: true,
      previous_secret_expires_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(JSON.stringify(res.body)).not.toContain('supersecret');
    expect(
      JSON.stringify((await suite.tenant.http.get(`/api/v1/agents/${a.agent_uuid}`)).body),
    ).not.toContain('supersecret');

    const [row] = await suite.app
      .get<DataSource>(DataSource)
      .query(`SELECT secret_ciphertext FROM agent_webhooks WHERE id = $1`, [w.webhook_uuid]);
    expect(row.secret_ciphertext).not.toContain('supersecret');
    expect(suite.app.get<SecretBox>(SecretBox).decrypt(row.secret_ciphertext)).toBe('whsec_supersecret');
  });

  it('gives delivery the active subscribed webhooks with their secrets opened', async () => {
    const a = await createAgent(suite.tenant);
    await suite.tenant.http
      .post(base(a))
      .send(hook({ url: 'https://hooks.example.com/a', secret_key: 'sa' }));
    await suite.tenant.http
      .post(base(a))
      .send(hook({ url: 'https://hooks.example.com/b', is_active: false }));
    await suite.tenant.http
      .post(base(a))
      .send(hook({ url: 'https://hooks.example.com/c', events: ['intent_call'] }));
    const service = suite.app.get<AgentWebhooksService>(AgentWebhooksService);
    const list = await service.activeWebhooks(suite.tenant.workspaceId, a.agent_uuid, 'conversation_status');
    expect(list).toEqual([
      {
        id: expect.any(String),
        url: 'https://hooks.example.com/a',
        events: ['conversation_status'],
        secret: 'sa',
      },
    ]);
    const other = await createTenant(suite.app);
    expect(await service.activeWebhooks(other.workspaceId, a.agent_uuid, 'conversation_status')).toEqual([]);
  });

  it('PATCH changes the keys sent; secret_key null removes the secret', async () => {
    const a = await createAgent(suite.tenant);
    const made = await suite.tenant.http.post(base(a)).send(hook({ secret_key: 's1' }));
    const id = made.body.data.webhooks[0].webhook_uuid;
    const off = await suite.tenant.http.patch(`${base(a)}/${id}`).send({ is_active: false });
    expect(off.body.data.webhooks[0]).toMatchObject({
      is_active: false,
      has_secret: true,
      events: ['conversation_status'],
    });
    const cleared = await suite.tenant.http.patch(`${base(a)}/${id}`).send({ secret_key: null });
    expect(cleared.body.data.webhooks[0].has_secret).toBe(false);
    const events = await suite.tenant.http.patch(`${base(a)}/${id}`).send({ events: ['intent_call'] });
    expect(events.body.data.webhooks[0]).toMatchObject({ events: ['intent_call'], is_active: false });
    const del = await suite.tenant.http.delete(`${base(a)}/${id}`);
    expect(del.body.data.webhooks).toEqual([]);
  });

  it('allows five webhooks per agent; the sixth is 409 WEBHOOK_LIMIT_REACHED', async () => {
    const a = await createAgent(suite.tenant);
    for (let i = 0; i < 5; i++)
      expect(
        (await suite.tenant.http.post(base(a)).send(hook({ url: `https://hooks.example.com/${i}` }))).status,
      ).toBe(201);
    const sixth = await suite.tenant.http.post(base(a)).send(hook());
    expect(sixth.status).toBe(409);
    expect(sixth.body.error.code).toBe('WEBHOOK_LIMIT_REACHED');
    const put = await suite.tenant.http
      .put(base(a))
      .send({ webhooks: Array.from({ length: 6 }, () => hook()) });
    expect(put.status).toBe(409);
    expect(put.body.error.code).toBe('WEBHOOK_LIMIT_REACHED');
    expect((await suite.tenant.http.get(`/api/v1/agents/${a.agent_uuid}`)).body.data.webhooks).toHaveLength(
      5,
    );
    const replaced = await suite.tenant.http
      .put(base(a))
      .send({ webhooks: [hook({ url: 'https://hooks.example.com/only' })] });
    expect(replaced.body.data.webhooks.map((w: any) => w.url)).toEqual(['https://hooks.example.com/only']);
  });

  it.each([
    [{ events: ['conversation_status'] }, 'VALIDATION_ERROR', 'url'],
    [hook({ url: 'not a url' }), 'INVALID_FORMAT', 'url'],
    [hook({ url: 'ftp://hooks.example.com/x' }), 'INVALID_FORMAT', 'url'],
    [{ url: 'https://hooks.example.com' }, 'VALIDATION_ERROR', 'events'],
    [hook({ events: [] }), 'VALIDATION_ERROR', 'events'],
    [hook({ events: ['call_started'] }), 'INVALID_FORMAT', 'events'],
    [hook({ events: 'conversation_status' }), 'INVALID_FORMAT', 'events'],
    [hook({ is_active: 'yes' }), 'INVALID_FORMAT', 'is_active'],
    [hook({ secret_key: 42 }), 'INVALID_FORMAT', 'secret_key'],
  ])('rejects %j with %s on %s', async (body, code, field) => {
    const a = await createAgent(suite.tenant);
    const res = await suite.tenant.http.post(base(a)).send(body);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code, field });
  });
});

describe('Agents: webhooks outside tests accept https only', () => {
  const suite = useTestApp({ env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'false' }, tenants: ['tenant'] });
  let tenant: TestTenant;

  beforeAll(() => {
    tenant = suite.tenant;
  });

  it('rejects a plain http url with 422 INVALID_FORMAT on url', async () => {
    const a = await createAgent(tenant);
    const res = await tenant.http
      .post(`/api/v1/agents/${a.agent_uuid}/webhooks`)
      .send({ url: 'http://hooks.example.com/agent', events: ['conversation_status'] });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'url' });
    const ok = await tenant.http
      .post(`/api/v1/agents/${a.agent_uuid}/webhooks`)
      .send({ url: 'https://hooks.example.com/agent', events: ['conversation_status'] });
    expect(ok.status).toBe(201);
  });
});
