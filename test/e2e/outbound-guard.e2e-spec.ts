import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { createAgent } from '../factories/agent.factory';
import { useTestApp } from '../setup/suite';

/** Spellings of addresses inside the network, and URLs that are not web addresses at all. */
const PRIVATE = [
  'https://127.0.0.1/v1',
  'https://127.1/v1',
  'https://2130706433/v1',
  'https://0x7f000001/v1',
  'https://0177.0.0.1/v1',
  'https://[::ffff:127.0.0.1]/v1',
  'https://[::127.0.0.1]/v1',
  'https://[::1]/v1',
  'https://localhost/v1',
  'https://api.localhost/v1',
  'https://169.254.169.254/latest/meta-data',
  'https://10.0.0.1/v1',
  'https://172.16.0.1/v1',
  'https://192.168.1.1/v1',
  'https://100.64.0.1/v1',
  'https://0.0.0.0/v1',
  'https://[fd00::1]/v1',
  'https://[fe80::1]/v1',
  'https://224.0.0.1/v1',
  'https://[64:ff9b::7f00:1]/v1',
  // A trailing dot (the DNS root), in any case or spelling, names the same host.
  'https://LOCALHOST./v1',
  'https://localhost../v1',
  'https://Api.LocalHost./v1',
  'https://localhost%2E/v1',
  'https://127.0.0.1./v1',
  'https://10.0.0.1../v1',
];
const NOT_WEB = [
  'http://llm.example.com/v1',
  'ftp://llm.example.com/v1',
  'file:///etc/passwd',
  'gopher://llm.example.com/',
  'https://user:pw@llm.example.com/v1',
  'not a url',
];

describe('One guard for every URL the service fetches for a tenant', () => {
  const suite = useTestApp({ env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'false' }, tenants: ['tenant'] });

  /** Each tenant-set URL field: how to save it, and the field the refusal names. */
  const fields: [string, (url: string, agent: string) => Promise<any>, string][] = [
    [
      'agent custom_llm_url (create)',
      (url) => suite.tenant.http.post('/api/v1/agents').send({ name: 'A', custom_llm_url: url }),
      'custom_llm_url',
    ],
    [
      'agent custom_llm_url (update)',
      (url, a) => suite.tenant.http.patch(`/api/v1/agents/${a}`).send({ custom_llm_url: url }),
      'custom_llm_url',
    ],
    [
      'intent webhook',
      (url, a) =>
        suite.tenant.http.post(`/api/v1/agents/${a}/intents`).send({ name: 'Order', webhook: { url } }),
      'webhook.url',
    ],
    [
      'agent webhook',
      (url, a) =>
        suite.tenant.http.post(`/api/v1/agents/${a}/webhooks`).send({ url, events: ['intent_call'] }),
      'url',
    ],
    [
      'workspace webhook',
      (url) => suite.tenant.http.post('/api/v1/webhooks').send({ url, events: ['intent_call'] }),
      'url',
    ],
  ];

  it.each(fields)(
    '%s: every private spelling is refused when saved, naming the field and why',
    async (_, save, field) => {
      const a = await createAgent(suite.tenant);
      for (const url of PRIVATE) {
        const res = await save(url, a.agent_uuid);
        expect({ url, status: res.status }).toEqual({ url, status: 422 });
        expect(res.body.error).toMatchObject({ code: 'INVALID_FORMAT', field });
        expect(res.body.message).toMatch(
          new RegExp(`^${field} must not target a private, loopback or reserved address \\(.+\\)$`),
        );
      }
      for (const url of NOT_WEB) {
        const res = await save(url, a.agent_uuid);
        expect({ url, status: res.status }).toEqual({ url, status: 422 });
        expect(res.body.error.field).toBe(field);
      }
      // Nothing was stored.
      const view = await suite.tenant.http.get(`/api/v1/agents/${a.agent_uuid}`).expect(200);
      expect(view.body.data).toMatchObject({ custom_llm_url: null, intents: [], webhooks: [] });
      const hooks = await suite.tenant.http.get('/api/v1/webhooks').expect(200);
      expect(hooks.body.data.items ?? hooks.body.data).toEqual([]);
    },
  );

  it('the crawler takes public http and https sites, and refuses the same private spellings', async () => {
    for (const url of [...PRIVATE, 'http://127.0.0.1/', 'ftp://example.com/']) {
      const res = await suite.tenant.http
        .post('/api/v1/data/import/website')
        .send({ name: 'Inside', url, depth: 0 });
      expect({ url, status: res.status }).toEqual({ url, status: 422 });
      expect(res.body.message).toMatch(/^url /);
    }
  });

  it('public https URLs are saved', async () => {
    const res = await suite.tenant.http
      .post('/api/v1/agents')
      .send({ name: 'Public', custom_llm_url: 'https://llm.example.com/v1' });
    expect(res.status).toBe(201);
    const intent = await suite.tenant.http
      .post(`/api/v1/agents/${res.body.data.agent_uuid}/intents`)
      .send({ name: 'Order', webhook: { url: 'https://hooks.example.com/orders' } });
    expect(intent.status).toBe(201);
  });

  describe('at connect time', () => {
    let server: Server;
    let hits: number;
    let port: number;
    beforeAll(async () => {
      hits = 0;
      server = createServer((_req, res) => {
        hits++;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ choices: [{ message: { content: '{"scores":[]}' } }] }));
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise((r) => server.close(r)));

    it('a custom_llm_url that now points inside is never connected to; the tenant reads a category', async () => {
      const a = await createAgent(suite.tenant, { custom_llm_url: 'https://llm.example.com/v1' });
      await suite.tenant.http
        .post(`/api/v1/agents/${a.agent_uuid}/routing-rules`)
        .send({ detection_mode: 'intent', ai_prompt: 'Refunds', phrases: ['refund please'] })
        .expect(201);
      // The stored address changes under the check made at save time (as a name re-pointed by its DNS does).
      for (const url of [
        `http://127.0.0.1:${port}/v1`,
        `http://localhost:${port}/v1`,
        `http://[::ffff:7f00:1]:${port}/v1`,
      ]) {
        await suite.app
          .get<DataSource>(DataSource)
          .query('UPDATE agents SET custom_llm_url = $1 WHERE id = $2', [url, a.agent_uuid]);
        const res = await suite.tenant.http
          .post(`/api/v1/agents/${a.agent_uuid}/rules/test`)
          .send({ utterance: 'refund please', channel: 'phone' });
        expect(res.status).toBe(200);
        expect(res.body.data).toMatchObject({
          classifier: 'local',
          classifier_note: 'Language model unreachable (refused: private address)',
        });
      }
      expect(hits).toBe(0);
    });
  });
});
