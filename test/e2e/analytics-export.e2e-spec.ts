import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { seedConversation, seedMessages, MessageSeed } from '../factories/analytics.factory';
import { insertAgent } from '../factories/agent.factory';
import { createTenant, TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';

const PATH = '/api/v1/analytics/messages';
const BASE = Date.UTC(2026, 0, 5, 9);
const at = (minutes: number) => new Date(BASE + minutes * 60_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Exported {
  message_uuid: string;
  created_at: string;
  channel: string;
  agent_uuid: string | null;
  content: string;
  content_disclosure: string;
}

describe('analytics: message export', () => {
  const suite = useTestApp();
  let db: DataSource;
  let a: TestTenant;
  let b: TestTenant;
  let agentId: string;
  let waConv: string;
  let smsConv: string;
  /** Every message of tenant a in export order: created_at, then uuid. */
  let expected: { id: string; createdAt: number; channel: string; agentId: string | null; content: string }[];

  const setPolicy = (tenant: TestTenant, policy: string) =>
    suite.app
      .internal()
      .put(`/internal/v1/workspaces/${tenant.slug}/policies`)
      .send({ ANALYTICS_MESSAGES_EXPORT: policy })
      .expect(200);

  async function walk(tenant: TestTenant, query: string, limit: number) {
    const pages: { meta: Record<string, unknown>; messages: Exported[] }[] = [];
    let cursor: string | null = null;
    do {
      const q: string = `${query}${query ? '&' : ''}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
      const res = await tenant.http.get(`${PATH}?${q}`).expect(200);
      expect(res.body.pagination.limit).toBe(limit);
      expect(res.body.messages.length).toBeLessThanOrEqual(limit);
      if (res.body.pagination.has_more) expect(res.body.messages).toHaveLength(limit);
      else expect(res.body.pagination.next_cursor).toBeNull();
      pages.push(res.body);
      cursor = res.body.pagination.next_cursor;
    } while (cursor);
    return { pages, messages: pages.flatMap((p) => p.messages) };
  }

  beforeAll(async () => {
    db = suite.app.get<DataSource>(DataSource);
    [a, b] = await Promise.all([createTenant(suite.app), createTenant(suite.app)]);
    agentId = await insertAgent(db, a.workspaceId);
    waConv = await seedConversation(db, a.workspaceId, { channel: 'whatsapp', agentId, createdAt: at(0) });
    smsConv = await seedConversation(db, a.workspaceId, { channel: 'sms', createdAt: at(0) });
    const seeds: MessageSeed[] = [];
    for (let i = 0; i < 540; i++) {
      const sms = i % 3 === 0;
      seeds.push({
        conversationId: sms ? smsConv : waConv,
        channel: sms ? 'sms' : 'whatsapp',
        agentId: sms ? null : agentId,
        direction: i % 2 ? 'outbound' : 'inbound',
        content: `message ${i}`,
        // Groups of four share a created_at, so the uuid decides their order; inserted out of order on purpose.
        createdAt: at(Math.floor(i / 4)),
      });
    }
    const shuffled = [...seeds].sort(() => Math.random() - 0.5);
    const ids = await seedMessages(db, a.workspaceId, shuffled);
    expected = shuffled
      .map((s, i) => ({
        id: ids[i],
        createdAt: s.createdAt!.getTime(),
        channel: s.channel,
        agentId: s.agentId ?? null,
        content: s.content!,
      }))
      .sort((x, y) => x.createdAt - y.createdAt || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    const bConv = await seedConversation(db, b.workspaceId, { channel: 'whatsapp', createdAt: at(0) });
    await seedMessages(db, b.workspaceId, [
      { conversationId: bConv, channel: 'whatsapp', content: 'tenant b', createdAt: at(1) },
    ]);
  });

  it('answers without the envelope: meta, messages and pagination, 500 by default', async () => {
    const res = await a.http.get(PATH).expect(200);
    expect(Object.keys(res.body).sort()).toEqual(['messages', 'meta', 'pagination']);
    expect(res.body.messages).toHaveLength(500);
    expect(res.body.pagination).toEqual({ next_cursor: expect.any(String), has_more: true, limit: 500 });
    expect(res.body.meta).toEqual({
      policy: 'raw',
      channel: null,
      from: null,
      to: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      generated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const first = expected[0];
    expect(res.body.messages[0]).toEqual({
      message_uuid: first.id,
      conversation_uuid: first.channel === 'sms' ? smsConv : waConv,
      session_uuid: null,
      contact_uuid: null,
      agent_uuid: first.agentId,
      channel: first.channel,
      channel_label: first.channel === 'sms' ? 'SMS' : 'WhatsApp',
      direction: expect.stringMatching(/^(inbound|outbound)$/),
      sender: expect.stringMatching(/^(customer|agent)$/),
      message_type: 'text',
      content: first.content,
      content_disclosure: 'raw',
      created_at: new Date(first.createdAt).toISOString(),
    });
    const next = await a.http.get(`${PATH}?cursor=${res.body.pagination.next_cursor}`).expect(200);
    expect(next.body.messages).toHaveLength(40);
    expect(next.body.pagination).toEqual({ next_cursor: null, has_more: false, limit: 500 });
  });

  it('walks every message once in created_at then uuid order, whatever the page size', async () => {
    for (const limit of [1000, 7]) {
      const { pages, messages } = await walk(a, '', limit);
      expect(messages.map((m) => m.message_uuid)).toEqual(expected.map((e) => e.id));
      // The walk's upper bound is fixed on its first page.
      expect(new Set(pages.map((p) => p.meta.to)).size).toBe(1);
    }
  });

  it('accepts limit 1 to 1000 and refuses anything else with INVALID_FORMAT on limit', async () => {
    const one = await a.http.get(`${PATH}?limit=1`).expect(200);
    expect(one.body.messages).toHaveLength(1);
    const max = await a.http.get(`${PATH}?limit=1000`).expect(200);
    expect(max.body.messages).toHaveLength(540);
    for (const bad of ['0', '1001', '-1', 'abc', '1.5', '', '0x10', '1e2', '%2B5', '10&limit=20']) {
      const res = await a.http.get(`${PATH}?limit=${bad}`).expect(422);
      expect(res.body.success).toBe(false);
      expect(res.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'limit' });
    }
  });

  it('refuses a tampered, garbage or foreign-query cursor with 422 INVALID_FORMAT on cursor', async () => {
    const res = await a.http.get(`${PATH}?limit=5`).expect(200);
    const cursor: string = res.body.pagination.next_cursor;
    const flipped = cursor.slice(0, 10) + (cursor[10] === 'A' ? 'B' : 'A') + cursor.slice(11);
    for (const bad of [
      flipped,
      cursor.slice(0, -2),
      `${cursor}x`,
      'garbage',
      '%00%ff',
      'A'.repeat(300),
      '',
    ]) {
      const r = await a.http.get(`${PATH}?limit=5&cursor=${bad}`).expect(422);
      expect(r.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'cursor' });
    }
    // A cursor is bound to the filters of the walk that issued it.
    for (const other of ['channel=sms', `agent_uuid=${agentId}`, 'from=2026-01-01', 'to=2027-01-01']) {
      const r = await a.http.get(`${PATH}?limit=5&${other}&cursor=${cursor}`).expect(422);
      expect(r.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'cursor' });
    }
    // The limit may change between pages.
    await a.http.get(`${PATH}?limit=50&cursor=${cursor}`).expect(200);
  });

  it('filters by channel and by agent', async () => {
    const sms = await walk(a, 'channel=sms', 100);
    expect(sms.messages.map((m) => m.message_uuid)).toEqual(
      expected.filter((e) => e.channel === 'sms').map((e) => e.id),
    );
    expect(sms.pages[0].meta.channel).toBe('sms');
    const byAgent = await walk(a, `agent_uuid=${agentId.toUpperCase()}`, 100);
    expect(byAgent.messages.map((m) => m.message_uuid)).toEqual(
      expected.filter((e) => e.agentId === agentId).map((e) => e.id),
    );
    const none = await a.http.get(`${PATH}?agent_uuid=019a9a53-0c4e-7a51-9a3e-2f4c8b7d6e10`).expect(200);
    expect(none.body.messages).toEqual([]);
    const instagram = await a.http.get(`${PATH}?channel=instagram`).expect(200);
    expect(instagram.body.messages).toEqual([]);
  });

  it('is half-open: from is included, to is excluded', async () => {
    const from = at(10).toISOString();
    const to = at(20).toISOString();
    const res = await walk(a, `from=${from}&to=${to}`, 9);
    const inRange = expected.filter((e) => e.createdAt >= at(10).getTime() && e.createdAt < at(20).getTime());
    expect(inRange).toHaveLength(40);
    expect(res.messages.map((m) => m.message_uuid)).toEqual(inRange.map((e) => e.id));
    expect(res.pages[0].meta).toMatchObject({ from, to });
    // An offset names the same instant.
    const shifted = await a.http
      .get(`${PATH}?from=2026-01-05T11:10:00%2B02:00&to=2026-01-05T11:20:00.000%2B02:00`)
      .expect(200);
    expect(shifted.body.messages.map((m: Exported) => m.message_uuid)).toEqual(inRange.map((e) => e.id));
    // A range that starts after the horizon is empty and says so.
    const future = await a.http.get(`${PATH}?from=2099-01-01`).expect(200);
    expect(future.body.messages).toEqual([]);
    expect(future.body.pagination).toEqual({ next_cursor: null, has_more: false, limit: 500 });
    expect(future.body.meta).toMatchObject({
      from: '2099-01-01T00:00:00.000Z',
      to: '2099-01-01T00:00:00.000Z',
    });
  });

  it('refuses bad filters with 422 naming the field', async () => {
    const cases: [string, string, string][] = [
      ['channel=fax', 'INVALID_FORMAT', 'channel'],
      ['agent_uuid=nope', 'INVALID_UUID', 'agent_uuid'],
      ['from=yesterday', 'INVALID_FORMAT', 'from'],
      ['to=2026-02-30', 'INVALID_FORMAT', 'to'],
      ['from=2026-01-05T10:00:00', 'INVALID_FORMAT', 'from'],
      ['from=2026-01-06&to=2026-01-05', 'VALIDATION_ERROR', 'to'],
      ['from=2026-01-05&to=2026-01-05', 'VALIDATION_ERROR', 'to'],
    ];
    for (const [query, code, field] of cases) {
      const res = await a.http.get(`${PATH}?${query}`).expect(422);
      expect(res.body.error).toMatchObject({ code, field });
    }
  });

  it('applies the workspace policy: masked hides every content, disabled is 403, raw shows it again', async () => {
    await setPolicy(a, 'masked');
    const masked = await walk(a, '', 1000);
    expect(masked.messages).toHaveLength(540);
    expect(masked.messages.every((m) => m.content === '***' && m.content_disclosure === 'masked')).toBe(true);
    expect(masked.pages[0].meta.policy).toBe('masked');

    await setPolicy(a, 'disabled');
    const disabled = await a.http.get(PATH).expect(403);
    expect(disabled.body).toMatchObject({ success: false, error: { code: 'FORBIDDEN' } });

    await setPolicy(a, 'raw');
    const raw = await a.http.get(`${PATH}?limit=3`).expect(200);
    expect(raw.body.meta.policy).toBe('raw');
    expect(raw.body.messages.map((m: Exported) => [m.content, m.content_disclosure])).toEqual(
      expected.slice(0, 3).map((e) => [e.content, 'raw']),
    );
  });

  it("never shows another workspace's messages, and refuses its cursors", async () => {
    const mine = await walk(b, '', 100);
    expect(mine.messages.map((m) => m.content)).toEqual(['tenant b']);
    const aPage = await a.http.get(`${PATH}?limit=5`).expect(200);
    const foreign = await b.http
      .get(`${PATH}?limit=5&cursor=${aPage.body.pagination.next_cursor}`)
      .expect(422);
    expect(foreign.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'cursor' });
    const byAgent = await b.http.get(`${PATH}?agent_uuid=${agentId}`).expect(200);
    expect(byAgent.body.messages).toEqual([]);
  });

  it('needs a token', async () => {
    const res = await suite.app.http(a.host).get(PATH).expect(401);
    expect(res.body.error.code).toBe('MISSING_AUTH_TOKEN');
  });

  it('returns each message exactly once while messages arrive, including from a transaction still open', async () => {
    const c = await createTenant(suite.app);
    const conv = await seedConversation(db, c.workspaceId, { channel: 'chat', createdAt: at(0) });
    const msg = (content: string, createdAt?: Date): MessageSeed => ({
      conversationId: conv,
      channel: 'chat',
      content,
      createdAt,
    });
    const settled = await seedMessages(
      db,
      c.workspaceId,
      Array.from({ length: 30 }, (_, i) => msg(`old ${i}`, at(i))),
    );

    // A writer whose transaction started first: its row takes created_at = the transaction's start, commits later.
    const late = new Client({ connectionString: suite.app.config.database.url });
    await late.connect();
    try {
      await late.query('BEGIN');
      const lateIds = await seedMessages(late as unknown as DataSource, c.workspaceId, [msg('late')]);
      await sleep(20);
      const arrived = await seedMessages(db, c.workspaceId, [msg('after late 1'), msg('after late 2')]);
      await sleep(1100);

      const seen: Exported[] = [];
      let res = await c.http.get(`${PATH}?limit=4`).expect(200);
      const horizon: string = res.body.meta.to;
      seen.push(...res.body.messages);
      let round = 0;
      while (res.body.pagination.has_more) {
        // New rows keep arriving during the walk, and the open transaction commits half way.
        arrived.push(...(await seedMessages(db, c.workspaceId, [msg(`during ${round}`)])));
        if (round === 3) await late.query('COMMIT');
        round++;
        res = await c.http.get(`${PATH}?limit=4&cursor=${res.body.pagination.next_cursor}`).expect(200);
        expect(res.body.meta.to).toBe(horizon);
        seen.push(...res.body.messages);
      }
      if (round <= 3) await late.query('COMMIT');
      expect(seen.map((m) => m.message_uuid)).toEqual(settled);

      // The next walk starts where this one ended and picks up everything else, once.
      const rest = [...lateIds, ...arrived];
      let next: Exported[] = [];
      for (let attempt = 0; attempt < 20 && next.length < rest.length; attempt++) {
        await sleep(300);
        next = (await walk(c, `from=${horizon}`, 3)).messages;
      }
      expect(next.map((m) => m.message_uuid).sort()).toEqual([...rest].sort());
      expect(next[0].message_uuid).toBe(lateIds[0]);
      const all = [...seen, ...next].map((m) => m.message_uuid);
      expect(new Set(all).size).toBe(all.length);
    } finally {
      await late.end();
    }
  });
});
