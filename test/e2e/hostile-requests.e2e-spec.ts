import * as https from 'node:https';
import * as zlib from 'node:zlib';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { client, TestApp } from '../setup/test-app';
import { createTenant } from '../factories/workspace.factory';
import { createAgent } from '../factories/agent.factory';
import { waitFor } from '../support/wait';
import { nestedText } from '../support/fuzz/generate';
import { useTestApp } from '../setup/suite';

/** What a careless or hostile client sends: every answer a declared 4xx naming the problem, never a 5xx. */
describe('Hostile requests', () => {
  const suite = useTestApp({ tenants: ['tenant'] });

  const raw = (path: string, headers: Record<string, string>, body: string | Buffer) => {
    let req = suite.tenant.http.post(path);
    for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
    return req.send(body as string);
  };

  it('stores a lone surrogate escape as U+FFFD, in a text column and in jsonb alike', async () => {
    const res = await raw(
      '/api/v1/data/import/copypaste',
      { 'Content-Type': 'application/json' },
      '{"name":"Lone \\ud800 name","data":"text \\udc00 here"}',
    );
    expect(res.status).toBe(201);
    expect(res.body.data.name).toBe('Lone \ufffd name');
  });

  describe('body encodings and charsets', () => {
    const body = JSON.stringify({ name: 'Encoded' });
    it.each([
      ['gzip', 'Content-Encoding gzip'],
      ['zstd', 'Content-Encoding zstd is not supported'],
      ['gzip, gzip', 'Content-Encoding gzip, gzip is not supported'],
      ['x-unknown', 'Content-Encoding x-unknown is not supported'],
    ])('Content-Encoding %s on a plain body is 400 naming the header', async (encoding, message) => {
      const res = await raw(
        '/api/v1/agents',
        { 'Content-Type': 'application/json', 'Content-Encoding': encoding },
        body,
      );
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('BAD_REQUEST');
      expect(res.body.message).toContain(message);
    });

    it('a gzip body that is gzip is read', async () => {
      // Bytes sent as they are: the test client would serialize a Buffer under a JSON content type.
      const gzipped = zlib.gzipSync(body);
      const url = new URL(suite.app.url);
      const res = await new Promise<{ status: number; body: any }>((resolve, reject) => {
        const req = https.request(
          {
            host: url.hostname,
            port: url.port,
            path: '/api/v1/agents',
            method: 'POST',
            rejectUnauthorized: false,
            headers: {
              Host: suite.tenant.host,
              Authorization: `Bearer ${suite.tenant.token}`,
              'Content-Type': 'application/json',
              'Content-Encoding': 'gzip',
              'Content-Length': gzipped.length,
            },
          },
          (r) => {
            let text = '';
            r.on('data', (c: Buffer) => (text += c.toString()));
            r.on('end', () => resolve({ status: r.statusCode!, body: JSON.parse(text) }));
          },
        );
        req.on('error', reject);
        req.end(gzipped);
      });
      expect(res.status).toBe(201);
      expect(res.body.data.name).toBe('Encoded');
    });

    it.each(['latin1', 'utf-16', 'koi8-r'])('charset=%s is 400 naming the charset', async (charset) => {
      const res = await raw(
        '/api/v1/agents',
        { 'Content-Type': `application/json; charset=${charset}` },
        body,
      );
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(`Content-Type charset ${charset} is not supported: use utf-8`);
    });

    it('charset=utf-8 is read', async () => {
      const res = await raw('/api/v1/agents', { 'Content-Type': 'application/json; charset=UTF-8' }, body);
      expect(res.status).toBe(201);
    });
  });

  describe('nesting depth', () => {
    it('a body nested past 32 levels, even in an unknown field, is 400 naming the limit', async () => {
      for (const depth of [33, 2_000, 100_000]) {
        const res = await raw(
          '/api/v1/agents',
          { 'Content-Type': 'application/json' },
          `{"name":"Deep","zz":${nestedText(depth)}}`,
        );
        expect({ depth, status: res.status }).toEqual({ depth, status: 400 });
        expect(res.body.message).toBe('JSON body nested deeper than 32 levels');
      }
    });

    it('32 levels are read (the unknown field is dropped)', async () => {
      const res = await raw(
        '/api/v1/agents',
        { 'Content-Type': 'application/json' },
        `{"name":"Deep","zz":${nestedText(31)}}`,
      );
      expect(res.status).toBe(201);
      expect(res.body.data).not.toHaveProperty('zz');
    });

    it('brackets inside strings do not count', async () => {
      const res = await suite.tenant.http.post('/api/v1/agents').send({ name: '[[[[{{{{'.repeat(20) });
      expect(res.status).toBe(201);
    });
  });

  describe('bodies where none is taken', () => {
    it('GET and DELETE ignore a malformed or deep body', async () => {
      const a = await createAgent(suite.tenant);
      for (const body of ['{"a":', nestedText(5_000)]) {
        const get = await suite.tenant.http
          .get(`/api/v1/agents/${a.agent_uuid}`)
          .set('Content-Type', 'application/json')
          .send(body);
        expect(get.status).toBe(200);
      }
      const del = await suite.tenant.http
        .delete(`/api/v1/agents/${a.agent_uuid}`)
        .set('Content-Type', 'application/json')
        .send('{"a":');
      expect(del.status).toBe(200);
    });
  });

  describe('path ids', () => {
    it.each(['%E0%A4%A', '%zz', '%', '%C3%28', '%00'])(
      'a badly encoded id %s is the 422 the route declares',
      async (id) => {
        const res = await suite.tenant.http.get(`/api/v1/agents/${id}`);
        expect(res.status).toBe(422);
        expect(res.body.error).toMatchObject({ code: 'INVALID_UUID', field: 'uuid' });
      },
    );

    it('a badly encoded path no route has is 404', async () => {
      const res = await suite.tenant.http.get('/api/v1/%E0%A4%A/x');
      expect(res.status).toBe(404);
    });

    it.each([
      ['get', ''],
      ['post', '/users'],
      ['get', '/users'],
      ['post', '/tokens'],
      ['get', '/tokens'],
      ['delete', '/tokens/01a2164c-def5-75f2-a627-d48415000000'],
      ['put', '/policies'],
    ] as const)(
      'an operator route %s :slug%s with NUL in the slug is 422 naming slug',
      async (method, rest) => {
        const res = await suite.app.internal()[method](`/internal/v1/workspaces/a%00b${rest}`).send({});
        expect(res.status).toBe(422);
        expect(res.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'slug' });
      },
    );
  });

  describe('answers true to the document', () => {
    it('agent webhooks in agent answers carry the webhook schema: uuid and previous_secret_expires_at', async () => {
      const a = await createAgent(suite.tenant);
      const res = await suite.tenant.http
        .post(`/api/v1/agents/${a.agent_uuid}/webhooks`)
        .send({ url: 'https://hooks.example.com/a', events: ['intent_call'] });
      const [hook] = res.body.data.webhooks;
      expect(hook).toMatchObject({ uuid: hook.webhook_uuid, previous_secret_expires_at: null });
      const view = await suite.tenant.http.get(`/api/v1/agents/${a.agent_uuid}`);
      expect(view.body.data.webhooks[0]).toEqual(hook);
    });

    it('POST /contacts with a batch answers a list, which the document declares', async () => {
      const res = await suite.tenant.http
        .post('/api/v1/contacts')
        .send({ contacts: [{ name: 'Ada', phone_number: '+447911123456' }, { name: 'Grace' }] });
      expect(res.status).toBe(201);
      expect(res.body.data).toHaveLength(2);
      const doc = await client(suite.app.url, 'localhost').get('/docs/openapi.json');
      const data =
        doc.body.paths['/api/v1/contacts'].post.responses['201'].content['application/json'].schema.properties
          .data;
      expect(data.oneOf).toEqual([
        { $ref: '#/components/schemas/ContactResponse' },
        { type: 'array', items: { $ref: '#/components/schemas/ContactResponse' } },
      ]);
    });

    it('is_active null is refused by the memorize settings routes, as by the evaluation ones', async () => {
      const a = await createAgent(suite.tenant);
      for (const path of ['/api/v1/memorize/default', `/api/v1/agents/${a.agent_uuid}/memorize`]) {
        const res = await suite.tenant.http.put(path).send({ is_active: null });
        expect(res.status).toBe(422);
        expect(res.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'is_active' });
        const read = await suite.tenant.http.get(path);
        expect(read.body.data.is_active).toBe(true);
      }
    });

    it('a value of the wrong type is told its type, not a range', async () => {
      const a = await createAgent(suite.tenant);
      const priority = await suite.tenant.http
        .post(`/api/v1/agents/${a.agent_uuid}/routing-rules`)
        .send({ trigger_keyword: 'x', priority: '' });
      expect(priority.status).toBe(422);
      expect(priority.body.message).toMatch(/^priority must be an integer/);
      const name = await suite.tenant.http.post('/api/v1/agents').send({ name: {} });
      expect(name.status).toBe(422);
      expect(name.body.message).toMatch(/^name must be a string/);
      const page = await suite.tenant.http.get('/api/v1/agents?page=1&page=2');
      expect(page.status).toBe(422);
      expect(page.body.message).toBe('page must be an integer');
    });
  });
});

describe('Server errors', () => {
  const suite = useTestApp({ database: 'server_errors', env: { LOG_LEVEL: 'info' }, captureLogs: true });
  let app: TestApp;

  beforeAll(() => {
    app = suite.app;
  });

  it('every 5xx logs its cause once, with the request id', async () => {
    const t = await createTenant(app);
    const db = app.get<DataSource>(DataSource);
    // A table gone from under the service: a fault of the server, not of the client.
    await db.query('ALTER TABLE agents RENAME TO agents_away');
    try {
      const res = await request(app.url)
        .get('/api/v1/agents')
        .disableTLSCerts()
        .set('Host', t.host)
        .set('Authorization', `Bearer ${t.token}`)
        .set('X-Request-Id', 'fault-1');
      expect(res.status).toBe(500);
      expect(JSON.stringify(res.body)).not.toContain('agents_away');
    } finally {
      await db.query('ALTER TABLE agents_away RENAME TO agents');
    }
    const lines = await waitFor(
      async () => {
        await Promise.resolve();
        const all = app
          .logs()
          .join('')
          .split('\n')
          .filter((l) => l.includes('fault-1'))
          .map((l) => JSON.parse(l) as Record<string, any>);
        return all.some((l) => l.msg === 'request completed') ? all : undefined;
      },
      5_000,
      'the log lines of the failed request',
    );
    const causes = lines.filter((l) => l.msg !== 'request completed');
    expect(causes).toHaveLength(1);
    expect(causes[0]).toMatchObject({
      level: 50,
      requestId: 'fault-1',
      method: 'GET',
      path: '/api/v1/agents',
    });
    expect(JSON.stringify(causes[0].err)).toContain('relation \\"agents\\" does not exist');
  });
});
