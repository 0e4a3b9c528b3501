import { DataSource } from 'typeorm';
import { createTenant, createToken } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';

describe('tenants and tokens', () => {
  const suite = useTestApp({ tenants: ['a', 'b'] });
  const second = useTestApp();

  const notFoundWorkspace = {
    success: false,
    message: 'Workspace not found',
    error: { code: 'RESOURCE_NOT_FOUND', details: 'Workspace not found' },
  };

  it('answers the workspace and the token on GET /api/v1/me', async () => {
    const res = await suite.a.http.get('/api/v1/me').expect(200);
    expect(res.body).toEqual({
      success: true,
      message: 'OK',
      data: {
        workspace: { uuid: suite.a.workspaceId, slug: suite.a.slug, name: `Workspace ${suite.a.slug}` },
        token: { uuid: suite.a.tokenId, name: 'test token', scopes: ['read', 'write'] },
      },
    });
  });

  it('answers 404 Workspace not found for an unknown tenant, whatever the token', async () => {
    const res = await suite.app.http('nobody-here.localhost', suite.a.token).get('/api/v1/me').expect(404);
    expect(res.body).toEqual(notFoundWorkspace);
  });

  it('answers 404 for hosts outside the service domain', async () => {
    for (const host of [
      'localhost',
      `${suite.a.slug}.example.com`,
      `x.${suite.a.slug}.localhost`,
      '-bad-.localhost',
    ]) {
      const res = await suite.app.http(host, suite.a.token).get('/api/v1/me');
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('RESOURCE_NOT_FOUND');
    }
  });

  it('accepts the host with a port and in upper case', async () => {
    await suite.app
      .http(`${suite.a.slug.toUpperCase()}.LOCALHOST:${suite.app.port}`, suite.a.token)
      .get('/api/v1/me')
      .expect(200);
  });

  it('answers 404 ENDPOINT_NOT_FOUND for an unknown route before looking at the token', async () => {
    const res = await suite.app.http(suite.a.host).get('/api/v1/does-not-exist').expect(404);
    expect(res.body).toEqual({
      success: false,
      message: 'Endpoint not found',
      error: { code: 'ENDPOINT_NOT_FOUND', details: 'Endpoint not found' },
    });
  });

  it('answers 401 MISSING_AUTH_TOKEN without an Authorization header', async () => {
    const res = await suite.app.http(suite.a.host).get('/api/v1/me').expect(401);
    expect(res.body).toEqual({
      success: false,
      message: 'Authorization header is missing',
      error: { code: 'MISSING_AUTH_TOKEN', details: 'Authorization header is missing' },
    });
  });

  it.each([
    ['a Basic scheme', (t: string) => `Basic ${t}`],
    ['an empty Bearer value', () => 'Bearer '],
    ['two values', (t: string) => `Bearer ${t} ${t}`],
    ['a bad checksum', (t: string) => `Bearer ${t.slice(0, -1)}${t.endsWith('A') ? 'B' : 'A'}`],
    ['an unknown well-formed token', () => 'Bearer cap_00000000000000000000000000000000000000'],
    ['a random string', () => 'Bearer hello'],
  ])('answers 401 INVALID_AUTH_TOKEN for %s', async (_name, header) => {
    const res = await suite.app
      .http(suite.a.host)
      .get('/api/v1/me')
      .set('Authorization', header(suite.a.token))
      .expect(401);
    expect(res.body.error.code).toBe('INVALID_AUTH_TOKEN');
    expect(res.body.success).toBe(false);
  });

  it("refuses another workspace's token with 401 INVALID_AUTH_TOKEN", async () => {
    const res = await suite.app.http(suite.a.host, suite.b.token).get('/api/v1/me').expect(401);
    expect(res.body.error.code).toBe('INVALID_AUTH_TOKEN');
  });

  it('lets a read-only token read', async () => {
    const readOnly = await createToken(suite.app, suite.a, ['read']);
    const res = await suite.app.http(suite.a.host, readOnly).get('/api/v1/me').expect(200);
    expect(res.body.data.token.scopes).toEqual(['read']);
  });

  it('makes a revocation effective on the very next request, also in a second API process', async () => {
    const tenant = await createTenant(suite.app);
    // Both processes now keep the authenticated token; the revocation must drop it in both.
    await suite.app.http(tenant.host, tenant.token).get('/api/v1/me').expect(200);
    await second.app.http(tenant.host, tenant.token).get('/api/v1/me').expect(200);
    await second.app.http(tenant.host, tenant.token).get('/api/v1/me').expect(200);

    await suite.app
      .internal()
      .delete(`/internal/v1/workspaces/${tenant.slug}/tokens/${tenant.tokenId}`)
      .expect(200);

    const first = await suite.app.http(tenant.host, tenant.token).get('/api/v1/me').expect(401);
    expect(first.body.error.code).toBe('INVALID_AUTH_TOKEN');
    const other = await second.app.http(tenant.host, tenant.token).get('/api/v1/me').expect(401);
    expect(other.body.error.code).toBe('INVALID_AUTH_TOKEN');
  });

  it('records last_used_at at most once a minute', async () => {
    const tenant = await createTenant(suite.app);
    const db = suite.app.get<DataSource>(DataSource);
    const read = async () =>
      (await db.query('SELECT last_used_at FROM api_tokens WHERE id = $1', [tenant.tokenId]))[0]
        .last_used_at as Date | null;
    expect(await read()).toBeNull();
    await tenant.http.get('/api/v1/me').expect(200);
    await waitFor(async () => (await read()) !== null);
    const first = await read();

    await tenant.http.get('/api/v1/me').expect(200);
    await new Promise((r) => setTimeout(r, 200));
    expect((await read())?.getTime()).toBe(first?.getTime());

    // A use more than a minute after the recorded one is recorded again (seen by a process that reads the token
    // now; a process that keeps the token counts the minute from its own record).
    await db.query(`UPDATE api_tokens SET last_used_at = now() - interval '2 minutes' WHERE id = $1`, [
      tenant.tokenId,
    ]);
    const old = await read();
    await second.app.http(tenant.host, tenant.token).get('/api/v1/me').expect(200);
    await waitFor(async () => (await read())!.getTime() > old!.getTime());
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 3000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
