import { DataSource } from 'typeorm';
import { ActionLog } from '@/modules/logs/action-log.service';
import { RequestLogsRepository } from '@/modules/logs/request-logs.repository';
import { createAgentId } from '../factories/agent.factory';
import { createContact } from '../factories/contact.factory';
import { createTenant, TestTenant } from '../factories/workspace.factory';
import { MISSING } from '../support/ids';
import { waitFor } from '../support/wait';
import { useTestApp } from '../setup/suite';

describe('logs routes (§15.4): the request log and the action log', () => {
  const suite = useTestApp({ tenants: ['t', 'other'] });

  /** The request-log rows of a request id, once the buffer has written them. */
  const logged = (tenant: TestTenant, requestId: string) =>
    waitFor(
      async () => {
        const res = await tenant.http.get('/api/v1/logs/requests?per_page=100');
        return res.body.data.items.find((r: { request_id: string }) => r.request_id === requestId);
      },
      10_000,
      `request ${requestId} logged`,
    );

  it('keeps method, path, masked query, status, duration, address, user agent and token; no body', async () => {
    await suite.t.http
      .post('/api/v1/agents')
      .set('X-Request-Id', 'req-create-agent-1')
      .set('User-Agent', 'log-test/1.0')
      .send({ name: 'Body secret name 42' })
      .expect(201);
    await suite.t.http
      .get('/api/v1/agents?per_page=5&api_key=sk-live-123&q=cap_abcdef')
      .set('X-Request-Id', 'req-list-agents-1')
      .expect(200);
    await suite.t.http.get(`/api/v1/agents/${MISSING}`).set('X-Request-Id', 'req-missing-1').expect(404);

    const created = await logged(suite.t, 'req-create-agent-1');
    expect(created).toMatchObject({
      method: 'POST',
      path: '/api/v1/agents',
      query: null,
      status: 201,
      user_agent: 'log-test/1.0',
      token: { uuid: suite.t.tokenId, name: 'test token', last_four: suite.t.token.slice(-4) },
    });
    expect(created.duration_ms).toEqual(expect.any(Number));
    expect(created.ip).toEqual(expect.any(String));
    expect(JSON.stringify(created)).not.toContain('Body secret name');
    const listed = await logged(suite.t, 'req-list-agents-1');
    expect(listed.query).toEqual({ per_page: '5', api_key: '[masked]', q: '[masked]' });
    const one = await suite.t.http.get(`/api/v1/logs/requests/${listed.uuid}`).expect(200);
    expect(one.body.data).toEqual(listed);
    // Nothing secret reached the table either.
    const rows = await suite.app
      .get<DataSource>(DataSource)
      .query('SELECT * FROM request_logs WHERE workspace_id = $1', [suite.t.workspaceId]);
    expect(JSON.stringify(rows)).not.toContain('sk-live-123');
    expect(JSON.stringify(rows)).not.toContain(suite.t.token);

    await logged(suite.t, 'req-missing-1');
    const errors = await suite.t.http.get('/api/v1/logs/requests?status=4xx&per_page=100').expect(200);
    expect(errors.body.data.items.every((r: { status: number }) => r.status >= 400 && r.status < 500)).toBe(
      true,
    );
    expect(errors.body.data.items.map((r: { request_id: string }) => r.request_id)).toContain(
      'req-missing-1',
    );
    const posts = await suite.t.http.get('/api/v1/logs/requests?method=POST&path=/api/v1/agents').expect(200);
    expect(posts.body.data.items.map((r: { method: string }) => r.method)).toEqual(
      posts.body.data.items.map(() => 'POST'),
    );
    const byToken = await suite.t.http.get(`/api/v1/logs/requests?token_uuid=${MISSING}`).expect(200);
    expect(byToken.body.data.items).toEqual([]);
  });

  it("shows only its own workspace's requests; another workspace's entry is 404", async () => {
    await suite.t.http.get('/api/v1/agents').set('X-Request-Id', 'req-own-1').expect(200);
    const mine = await logged(suite.t, 'req-own-1');
    const theirs = await suite.other.http.get('/api/v1/logs/requests?per_page=100').expect(200);
    expect(theirs.body.data.items.map((r: { uuid: string }) => r.uuid)).not.toContain(mine.uuid);
    await suite.other.http.get(`/api/v1/logs/requests/${mine.uuid}`).expect(404);
  });

  it('lists action rows with agent and contact, filtered; reads one by type; 404 across workspaces', async () => {
    const agentId = await createAgentId(suite.t, { name: 'Log agent' });
    const contact = await createContact(suite.t, { name: 'Grace', surname: 'Hopper' });
    const contactId = contact.uuid ?? contact.contact_uuid;
    const log = suite.app.get<ActionLog>(ActionLog);
    const intentId = await log.record(suite.t.workspaceId, {
      type: 'intent',
      name: 'book_demo',
      status: 'succeeded',
      channel: 'phone',
      durationMs: 420,
      agentId,
      contactId,
      request: { date: '2026-12-01' },
      response: { ok: true },
    });
    await log.record(suite.t.workspaceId, {
      type: 'task',
      name: 'Call Ada',
      status: 'failed',
      error: 'busy',
    });
    const list = await suite.t.http.get(`/api/v1/logs/actions?type=intent&agent_uuid=${agentId}`).expect(200);
    expect(list.body.data.items).toEqual([
      {
        uuid: intentId,
        type: 'intent',
        name: 'book_demo',
        status: 'succeeded',
        channel: 'phone',
        duration_ms: 420,
        agent: { uuid: agentId, name: 'Log agent' },
        contact: { uuid: contactId, name: 'Grace Hopper' },
        request: { date: '2026-12-01' },
        response: { ok: true },
        error: null,
        created_at: expect.any(String),
      },
    ]);
    const failed = await suite.t.http.get('/api/v1/logs/actions?status=failed').expect(200);
    expect(failed.body.data.items.map((r: { name: string }) => r.name)).toEqual(['Call Ada']);
    await suite.t.http.get(`/api/v1/logs/actions/intent/${intentId}`).expect(200);
    await suite.t.http.get(`/api/v1/logs/actions/task/${intentId}`).expect(404);
    const badType = await suite.t.http.get(`/api/v1/logs/actions/nope/${intentId}`).expect(422);
    expect(badType.body.error.field).toBe('type');
    await suite.other.http.get(`/api/v1/logs/actions/intent/${intentId}`).expect(404);
    const theirs = await suite.other.http.get('/api/v1/logs/actions').expect(200);
    expect(theirs.body.data.items).toEqual([]);
  });

  it('retention deletes rows older than LOG_RETENTION_DAYS', async () => {
    const db = suite.app.get<DataSource>(DataSource);
    const tenant = await createTenant(suite.app);
    await tenant.http.get('/api/v1/agents').set('X-Request-Id', 'req-old-1').expect(200);
    const old = await logged(tenant, 'req-old-1');
    await db.query(`UPDATE request_logs SET created_at = now() - interval '31 days' WHERE id = $1`, [
      old.uuid,
    ]);
    const deleted = await suite.app
      .get<RequestLogsRepository>(RequestLogsRepository)
      .purgeOlderThan('request_logs', 30, 100);
    expect(deleted).toBeGreaterThanOrEqual(1);
    await tenant.http.get(`/api/v1/logs/requests/${old.uuid}`).expect(404);
  });
});
