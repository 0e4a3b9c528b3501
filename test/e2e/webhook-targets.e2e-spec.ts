import { RetryPolicy } from '@/modules/events/retry-policy';
import { startTestApp, TestApp } from '../setup/test-app';
import { createTenant, TestTenant } from '../factories/workspace.factory';
import { createWebhook, emitEvent } from '../factories/webhook.factory';
import { dropDatabase, isolatedDatabase } from '../support/isolated-database';
import { waitFor } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

describe('Webhook targets with private network targets refused', () => {
  let dbUrl: string;
  let app: TestApp;
  let rx: WebhookReceiver;
  let t: TestTenant;

  beforeAll(async () => {
    rx = await WebhookReceiver.start();
    dbUrl = await isolatedDatabase('webhook_targets');
    app = await startTestApp({ DATABASE_URL: dbUrl, ALLOW_PRIVATE_NETWORK_TARGETS: 'false' });
    app.get<RetryPolicy>(RetryPolicy).configure({ maxAttempts: 1 });
    t = await createTenant(app);
  });
  afterAll(async () => {
    await app.close();
    await rx.close();
    await dropDatabase(dbUrl);
  });

  it('refuses plain http subscriptions', async () => {
    const res = await t.http.post('/api/v1/webhooks').send({ url: rx.url('/x'), events: ['intent_call'] });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'url' });
  });

  it('never connects to loopback, private, link-local, unique-local, multicast or reserved targets in any notation', async () => {
    const port = rx.port;
    const targets = [
      `https://127.0.0.1:${port}/`,
      `https://2130706433:${port}/`,
      `https://0x7f000001:${port}/`,
      `https://0177.0.0.1:${port}/`,
      `https://127.1:${port}/`,
      `https://[::ffff:127.0.0.1]:${port}/`,
      `https://[::127.0.0.1]:${port}/`,
      `https://[::1]:${port}/`,
      `https://localhost:${port}/`,
      'https://10.0.0.1/',
      'https://192.168.1.1/',
      'https://169.254.169.254/latest/meta-data',
      'https://[fd00::1]/',
      'https://[fe80::1]/',
      'https://224.0.0.1/',
      'https://240.0.0.1/',
      'https://100.64.0.1/',
      'https://0.0.0.0/',
      'https://[64:ff9b::7f00:1]/',
    ];
    const hooks: string[] = [];
    for (let i = 0; i < targets.length; i += 10) {
      const tenant = i === 0 ? t : await createTenant(app);
      for (const url of targets.slice(i, i + 10))
        hooks.push((await createWebhook(tenant, { url, events: ['intent_call'] })).uuid);
      await emitEvent(app, tenant, 'intent_call', {});
      const items = await waitFor(
        async () => {
          const res = await tenant.http.get('/api/v1/webhooks/deliveries?per_page=100').expect(200);
          const list = res.body.data.items as Array<{
            status: string;
            url: string;
            attempts: Array<{ error: string }>;
          }>;
          return list.length === Math.min(10, targets.length - i) && list.every((d) => d.status === 'failed')
            ? list
            : undefined;
        },
        15_000,
        'refused deliveries',
      );
      for (const d of items) {
        expect(d.attempts).toHaveLength(1);
        expect(d.attempts[0].error).toMatch(/not allowed/);
      }
    }
    expect(hooks).toHaveLength(targets.length);
    expect(rx.received).toHaveLength(0);
  });
});
