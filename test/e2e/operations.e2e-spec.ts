import SwaggerParser from '@apidevtools/swagger-parser';
import { client } from '../setup/test-app';
import { useTestApp } from '../setup/suite';

describe('operations: health, request ids, OpenAPI', () => {
  const suite = useTestApp({ tenants: ['tenant'] });

  const anyHost = () => client(suite.app.url, 'whatever.example');

  it('answers /health and /health/ready without tenant or token', async () => {
    await anyHost().get('/health').expect(200, { status: 'ok' });
    const ready = await anyHost().get('/health/ready').expect(200);
    expect(ready.body).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok' } });
  });

  it('echoes a valid X-Request-Id and generates one otherwise', async () => {
    const given = await suite.tenant.http.get('/api/v1/me').set('X-Request-Id', 'req-123.abc').expect(200);
    expect(given.headers['x-request-id']).toBe('req-123.abc');
    const generated = await suite.tenant.http.get('/api/v1/me').expect(200);
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const hostile = await suite.tenant.http
      .get('/api/v1/me')
      .set('X-Request-Id', 'bad id\twith spaces')
      .expect(200);
    expect(hostile.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const onError = await suite.app
      .http(suite.tenant.host)
      .get('/api/v1/me')
      .set('X-Request-Id', 'err-1')
      .expect(401);
    expect(onError.headers['x-request-id']).toBe('err-1');
  });

  it('serves Swagger UI at /docs and a valid OpenAPI 3 document at /docs/openapi.json, without token or tenant', async () => {
    const ui = await anyHost().get('/docs').redirects(1).expect(200);
    expect(ui.text).toContain('swagger-ui');
    const res = await anyHost().get('/docs/openapi.json').expect(200);
    const doc = res.body;
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.version).toBe('1.0.0');
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined();
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    const me = doc.paths['/api/v1/me'].get;
    expect(me.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(me.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '404', '429']));
    expect(me.responses['401'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/ErrorBody',
    );
    expect(doc.paths['/internal/v1/workspaces/{slug}/tokens'].post.responses['201']).toBeDefined();
  });

  it('documents on every tenant write the pipeline answers: 400, 413, and the Idempotency-Key of each POST', async () => {
    const doc = (await anyHost().get('/docs/openapi.json').expect(200)).body;
    let posts = 0;
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      if (!path.startsWith('/api/v1/')) continue;
      for (const method of ['post', 'put', 'patch']) {
        const op = ops[method];
        if (!op) continue;
        const where = `${method.toUpperCase()} ${path}`;
        expect([where, op.responses['400']?.description]).toEqual([
          where,
          expect.stringContaining('BAD_REQUEST'),
        ]);
        expect([where, op.responses['413']?.description]).toEqual([
          where,
          expect.stringContaining('PAYLOAD_TOO_LARGE'),
        ]);
        if (method !== 'post') continue;
        posts += 1;
        const headers = (op.parameters ?? []).filter(
          (p: any) => p.in === 'header' && p.name === 'Idempotency-Key',
        );
        expect([where, headers.length]).toEqual([where, 1]);
        expect([where, op.responses['422']?.description]).toEqual([
          where,
          expect.stringContaining('IDEMPOTENCY_KEY_REUSED'),
        ]);
        expect([where, op.responses['409']?.description]).toEqual([
          where,
          expect.stringContaining('IDEMPOTENCY_KEY_IN_USE'),
        ]);
      }
    }
    expect(posts).toBeGreaterThan(20);
    // A status the route already documents keeps its own codes.
    const hooks = doc.paths['/api/v1/agents/{uuid}/webhooks'].post.responses['409'].description;
    expect(hooks).toContain('WEBHOOK_LIMIT_REACHED');
  });

  it('documents every route the service answers', async () => {
    const doc = (await anyHost().get('/docs/openapi.json').expect(200)).body;
    const documented = new Set(
      Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace(/\{[^}]+\}/g, ':p')}`),
      ),
    );
    const router = suite.app.api.app.getHttpAdapter().getInstance().router as {
      stack: { route?: { path: string; methods: Record<string, boolean> } }[];
    };
    const served = router.stack
      .filter((l) => l.route && /^\/(api|internal)\//.test(l.route.path) && !l.route.path.includes('*'))
      .flatMap((l) =>
        Object.keys(l.route!.methods).map(
          (m) => `${m.toUpperCase()} ${l.route!.path.replace(/:[A-Za-z]+/g, ':p')}`,
        ),
      );
    expect(served.length).toBeGreaterThan(5);
    for (const route of served) expect(documented).toContain(route);
  });
});
