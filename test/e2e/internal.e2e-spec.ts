import { uniqueSlug } from '../factories/workspace.factory';
import { ADMIN_KEY, client, TestApp } from '../setup/test-app';
import { useTestApp } from '../setup/suite';

describe('internal module: workspaces, users, tokens, policies', () => {
  const suite = useTestApp();

  const ws = () => suite.app.internal();

  async function workspaceWithUser(role = 'developer') {
    const slug = uniqueSlug('int');
    await ws().post('/internal/v1/workspaces').send({ slug, name: 'Acme' }).expect(201);
    const user = await ws()
      .post(`/internal/v1/workspaces/${slug}/users`)
      .send({ email: `u@${slug}.test`, role })
      .expect(201);
    return { slug, userId: user.body.data.uuid as string };
  }

  it('requires the admin key: 401 without it or with a wrong one', async () => {
    const none = await client(suite.app.url, 'ops.test').get('/internal/v1/workspaces/whatever').expect(401);
    expect(none.body.error.code).toBe('MISSING_AUTH_TOKEN');
    const wrong = await client(suite.app.url, 'ops.test', 'not-the-key')
      .get('/internal/v1/workspaces/whatever')
      .expect(401);
    expect(wrong.body.error.code).toBe('INVALID_AUTH_TOKEN');
  });

  it('checks the key before the body: malformed JSON without the key is 401', async () => {
    const res = await client(suite.app.url, 'ops.test')
      .post('/internal/v1/workspaces')
      .set('Content-Type', 'application/json')
      .send('{"slug": ')
      .expect(401);
    expect(res.body.error.code).toBe('MISSING_AUTH_TOKEN');
  });

  it('creates a workspace with default policies and its base address', async () => {
    const slug = uniqueSlug('acme');
    const res = await ws().post('/internal/v1/workspaces').send({ slug, name: 'Acme Inc.' }).expect(201);
    expect(res.body).toEqual({
      success: true,
      message: 'Created',
      data: {
        uuid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
        slug,
        name: 'Acme Inc.',
        policies: { ANALYTICS_MESSAGES_EXPORT: 'raw' },
        base_url: `https://${slug}.localhost:${suite.app.config.port}`,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        updated_at: expect.any(String),
      },
    });
    const again = await ws().post('/internal/v1/workspaces').send({ slug }).expect(409);
    expect(again.body.error.code).toBe('CONFLICT');
  });

  it('validates the slug: missing is VALIDATION_ERROR, a bad one INVALID_FORMAT, with the field named', async () => {
    const missing = await ws().post('/internal/v1/workspaces').send({ name: 'x' }).expect(422);
    expect(missing.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'slug' });
    for (const slug of ['Upper', 'a_b', '-ab', 'ab', 'a--b', 'x'.repeat(64)]) {
      const res = await ws().post('/internal/v1/workspaces').send({ slug }).expect(422);
      expect(res.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'slug' });
    }
    const wrongType = await ws().post('/internal/v1/workspaces').send({ slug: 42 }).expect(422);
    expect(wrongType.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'slug' });
  });

  it("joins several validation messages with ' | ' and names the first field", async () => {
    const { slug } = await workspaceWithUser();
    const res = await ws()
      .post(`/internal/v1/workspaces/${slug}/users`)
      .send({ email: 'nope', role: 'boss' })
      .expect(422);
    expect(res.body.error.field).toBe('email');
    expect(res.body.message.split(' | ')).toHaveLength(2);
    expect(res.body.error.details).toBe(res.body.message);
    expect(res.body.message).toContain('role must be one of admin, developer, member');
  });

  it('answers 400 BAD_REQUEST for malformed JSON and for a body that is not JSON', async () => {
    const bad = await ws()
      .post('/internal/v1/workspaces')
      .set('Content-Type', 'application/json')
      .send('{"slug": ')
      .expect(400);
    expect(bad.body).toEqual({
      success: false,
      message: 'Malformed JSON in request body',
      error: { code: 'BAD_REQUEST', details: 'Malformed JSON in request body' },
    });
    const text = await ws()
      .post('/internal/v1/workspaces')
      .set('Content-Type', 'text/plain')
      .send('slug=abc')
      .expect(400);
    expect(text.body.error).toEqual({
      code: 'BAD_REQUEST',
      details: 'Content-Type must be application/json',
    });
  });

  it('answers 413 PAYLOAD_TOO_LARGE for a JSON body over 1 MB', async () => {
    const res = await ws()
      .post('/internal/v1/workspaces')
      .send({ slug: 'big-one', name: 'x'.repeat(1024 * 1024 + 10) })
      .expect(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('creates a token shown once; lists tokens without their value', async () => {
    const { slug, userId } = await workspaceWithUser('admin');
    const created = await ws()
      .post(`/internal/v1/workspaces/${slug}/tokens`)
      .send({ name: 'ci', user_uuid: userId })
      .expect(201);
    const token: string = created.body.data.token;
    expect(token).toMatch(/^cap_[0-9A-Za-z]{38}$/);
    expect(created.body.data).toMatchObject({
      name: 'ci',
      scopes: ['read', 'write'],
      created_by: userId,
      last_four: token.slice(-4),
    });

    const list = await ws().get(`/internal/v1/workspaces/${slug}/tokens`).expect(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toEqual({
      uuid: created.body.data.uuid,
      name: 'ci',
      scopes: ['read', 'write'],
      created_by: userId,
      last_four: token.slice(-4),
      created_at: expect.any(String),
      last_used_at: null,
      revoked_at: null,
    });
    expect(JSON.stringify(list.body)).not.toContain(token);

    await client(suite.app.url, `${slug}.localhost`, token).get('/api/v1/me').expect(200);
  });

  it('lets only admins and developers create tokens', async () => {
    const { slug, userId } = await workspaceWithUser('member');
    const res = await ws()
      .post(`/internal/v1/workspaces/${slug}/tokens`)
      .send({ name: 'x', user_uuid: userId })
      .expect(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
  });

  it('validates token requests: scopes, user_uuid, unknown workspace', async () => {
    const { slug, userId } = await workspaceWithUser();
    const scopes = await ws()
      .post(`/internal/v1/workspaces/${slug}/tokens`)
      .send({ name: 'x', user_uuid: userId, scopes: ['read', 'admin'] })
      .expect(422);
    expect(scopes.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'scopes' });
    const badUuid = await ws()
      .post(`/internal/v1/workspaces/${slug}/tokens`)
      .send({ name: 'x', user_uuid: 'abc' })
      .expect(422);
    expect(badUuid.body.error).toMatchObject({ code: 'INVALID_UUID', field: 'user_uuid' });
    const unknownUser = await ws()
      .post(`/internal/v1/workspaces/${slug}/tokens`)
      .send({ name: 'x', user_uuid: '0190f3a2-7c1e-7a3b-8c4d-1234567890ab' })
      .expect(422);
    expect(unknownUser.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'user_uuid' });
    const noWs = await ws()
      .post('/internal/v1/workspaces/no-such-ws/tokens')
      .send({ name: 'x', user_uuid: userId })
      .expect(404);
    expect(noWs.body.error.code).toBe('RESOURCE_NOT_FOUND');
  });

  it('creates read-only tokens that cannot write', async () => {
    const { slug, userId } = await workspaceWithUser();
    const res = await ws()
      .post(`/internal/v1/workspaces/${slug}/tokens`)
      .send({ name: 'reader', user_uuid: userId, scopes: ['read'] })
      .expect(201);
    expect(res.body.data.scopes).toEqual(['read']);
  });

  it('revokes a token: 404 for an unknown one, INVALID_UUID for a malformed one', async () => {
    const { slug } = await workspaceWithUser();
    const unknown = await ws()
      .delete(`/internal/v1/workspaces/${slug}/tokens/0190f3a2-7c1e-7a3b-8c4d-1234567890ab`)
      .expect(404);
    expect(unknown.body.error.code).toBe('RESOURCE_NOT_FOUND');
    const malformed = await ws().delete(`/internal/v1/workspaces/${slug}/tokens/xyz`).expect(422);
    expect(malformed.body.error).toMatchObject({ code: 'INVALID_UUID', field: 'uuid' });
  });

  it('sets the export policy, refusing unknown values', async () => {
    const { slug } = await workspaceWithUser();
    const res = await ws()
      .put(`/internal/v1/workspaces/${slug}/policies`)
      .send({ ANALYTICS_MESSAGES_EXPORT: 'masked' })
      .expect(200);
    expect(res.body.data.policies).toEqual({ ANALYTICS_MESSAGES_EXPORT: 'masked' });
    const bad = await ws()
      .put(`/internal/v1/workspaces/${slug}/policies`)
      .send({ ANALYTICS_MESSAGES_EXPORT: 'open' })
      .expect(422);
    expect(bad.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'ANALYTICS_MESSAGES_EXPORT' });
  });
});

describe('internal module without ADMIN_API_KEY', () => {
  const suite = useTestApp({ env: { ADMIN_API_KEY: '' } });
  let app: TestApp;
  beforeAll(() => {
    app = suite.app;
  });

  it('does not exist: 404 ENDPOINT_NOT_FOUND even with a key', async () => {
    const res = await client(app.url, 'ops.test', ADMIN_KEY)
      .post('/internal/v1/workspaces')
      .send({ slug: 'abc' })
      .expect(404);
    expect(res.body.error.code).toBe('ENDPOINT_NOT_FOUND');
  });
});
