import { DataSource } from 'typeorm';
import { RetryPolicy } from '@/modules/events/retry-policy';
import { createTenant } from '../factories/workspace.factory';
import { createWebhook, emitEvent } from '../factories/webhook.factory';
import { waitFor } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';
import { useTestApp } from '../setup/suite';

describe('Webhook targets with private network targets refused', () => {
  const suite = useTestApp({
    servers: { rx: () => WebhookReceiver.start() },
    database: 'webhook_targets',
    env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'false' },
    tenants: ['t'],
  });
  beforeAll(() => suite.app.get<RetryPolicy>(RetryPolicy).configure({ maxAttempts: 1 }));

  it('refuses plain http subscriptions', async () => {
    const res = await suite.t.http
      .post('/api/v1/webhooks')
      .send({ url: suite.rx.url('/x'), events: ['intent_call'] });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'url' });
  });

  it('never connects to loopback, private, link-local, unique-local, multicast or reserved targets in any notation', async () => {
    const port = suite.rx.port;
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
    // Refused when saved, naming the field and saying why: nothing is stored, nothing is ever sent.
    for (const url of targets) {
      const res = await suite.t.http.post('/api/v1/webhooks').send({ url, events: ['intent_call'] });
      expect({ url, status: res.status }).toEqual({ url, status: 422 });
      expect(res.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'url' });
      expect(res.body.message).toMatch(/^url must not target a private, loopback or reserved address \(/);
    }
    const listed = await suite.t.http.get('/api/v1/webhooks').expect(200);
    expect(listed.body.data.items ?? listed.body.data).toEqual([]);
    expect(suite.rx.received).toHaveLength(0);
  });

  it('checks the address again at connect time: a stored URL that now points inside is never connected to', async () => {
    const tenant = await createTenant(suite.app);
    const w = await createWebhook(tenant, { url: 'https://hooks.example.com/in', events: ['intent_call'] });
    // The stored address changes under the check made at save time (as a name re-pointed by its DNS does).
    for (const url of [`https://127.0.0.1:${suite.rx.port}/x`, `https://localhost:${suite.rx.port}/x`]) {
      await suite.app
        .get<DataSource>(DataSource)
        .query(`UPDATE webhooks SET url = $1 WHERE id = $2`, [url, w.uuid]);
      await emitEvent(suite.app, tenant, 'intent_call', {});
    }
    const items = await waitFor(
      async () => {
        const res = await tenant.http.get('/api/v1/webhooks/deliveries?per_page=100').expect(200);
        const list = res.body.data.items as Array<{ status: string; attempts: Array<{ error: string }> }>;
        return list.length === 2 && list.every((d) => d.status === 'failed') ? list : undefined;
      },
      15_000,
      'refused deliveries',
    );
    // The tenant reads a category, never a socket error.
    for (const d of items) expect(d.attempts.map((a) => a.error)).toEqual(['refused: private address']);
    expect(suite.rx.received).toHaveLength(0);
  });
});
