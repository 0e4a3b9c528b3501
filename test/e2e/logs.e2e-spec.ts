import { createTenant } from '../factories/workspace.factory';
import { waitFor } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';
import { useTestApp } from '../setup/suite';

describe('logs never hold tokens or secrets', () => {
  const suite = useTestApp({
    servers: { rx: () => WebhookReceiver.start() },
    database: 'logs',
    env: { LOG_LEVEL: 'debug' },
    captureLogs: true,
  });

  it('logs requests, token creation, webhook secrets, rotation and signed deliveries without any of the values', async () => {
    const secrets: string[] = [];
    // A token created through the internal API: its value is in the answer, never in a log.
    const t = await createTenant(suite.app);
    secrets.push(t.token);
    const created = await suite.app
      .internal()
      .post(`/internal/v1/workspaces/${t.slug}/tokens`)
      .send({ name: 'second', user_uuid: t.userId })
      .expect(201);
    secrets.push(created.body.data.token);

    const webhookSecret = 'whsec_' + Buffer.from('a very secret signing key!').toString('base64');
    secrets.push(webhookSecret);
    const hook = await t.http
      .post('/api/v1/webhooks')
      .send({
        url: suite.rx.url('/hook'),
        events: ['conversation_status', 'conversation_update'],
        is_active: true,
        secret_key: webhookSecret,
      })
      .expect(201);
    const rotated = await t.http
      .post(`/api/v1/webhooks/${hook.body.data.uuid}/rotate-secret`)
      .send({})
      .expect(200);
    const generated = JSON.stringify(rotated.body).match(/whsec_[A-Za-z0-9+/=]+/)?.[0];
    expect(generated).toBeDefined();
    secrets.push(generated!);

    const agent = (await t.http.post('/api/v1/agents').send({ name: 'Logged' }).expect(201)).body.data
      .agent_uuid;
    const agentSecret = 'agent-webhook-secret-0123456789';
    secrets.push(agentSecret);
    await t.http
      .post(`/api/v1/agents/${agent}/webhooks`)
      .send({
        url: suite.rx.url('/agent'),
        events: ['conversation_status'],
        is_active: true,
        secret_key: agentSecret,
      })
      .expect(201);
    const intentToken = 'intent-auth-token-abcdef';
    secrets.push(intentToken);
    await t.http
      .post(`/api/v1/agents/${agent}/intents`)
      .send({
        name: 'Check order',
        webhook: { url: 'https://hooks.example.com/orders', auth_token: intentToken },
      })
      .expect(201);

    // Events that get signed and delivered.
    await t.http.post('/api/v1/conversations').send({ agent_uuid: agent, channel: 'chat' }).expect(201);
    await waitFor(
      async () => (suite.rx.at('/hook').length && suite.rx.at('/agent').length ? true : undefined),
      20_000,
      'deliveries',
    );
    // Bad tokens in headers are logged as requests too.
    await suite.app.http(t.host, 'cap_not_a_real_token_value_1234567890').get('/api/v1/me').expect(401);
    secrets.push('cap_not_a_real_token_value_1234567890');

    const logs = suite.app.logs().join('');
    expect(logs).toContain('"msg":"request completed"');
    for (const secret of secrets) expect(logs).not.toContain(secret);
    expect(logs).not.toContain(Buffer.from('a very secret signing key!').toString('base64'));
  });

  it('writes one line a request with its id, status, time and workspace; answers the id', async () => {
    const t = await createTenant(suite.app);
    const given = await t.http.get('/api/v1/me').set('X-Request-Id', 'trace-42.a');
    expect(given.headers['x-request-id']).toBe('trace-42.a');
    const made = await suite.app.http('nobody.localhost').get('/api/v1/me').set('X-Request-Id', 'bad id!');
    expect(made.status).toBe(404);
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    // The line is written when the server has handed the answer over, which may be just after the client has it.
    const lineOf = (id: string) =>
      waitFor(
        async () => {
          await Promise.resolve();
          return suite.app
            .logs()
            .join('')
            .split('\n')
            .filter((l) => l.includes('"msg":"request completed"'))
            .map((l) => JSON.parse(l) as Record<string, any>)
            .find((l) => l.req.id === id);
        },
        5_000,
        `the request line of ${id}`,
      );
    expect(await lineOf('trace-42.a')).toMatchObject({
      level: 30,
      req: { method: 'GET', url: '/api/v1/me' },
      res: { statusCode: 200 },
      responseTime: expect.any(Number),
      workspace: t.slug,
    });
    expect(await lineOf(made.headers['x-request-id'] as string)).toMatchObject({
      res: { statusCode: 404 },
    });
  });
});
