import { KnowledgeService } from '@/modules/knowledge/knowledge.service';
import { createAgent, synced, waitFor } from '../factories/knowledge.factory';
import { createTenant } from '../factories/workspace.factory';
import { LlmServer } from '../support/llm-server';
import { KnowledgeBase, loadKnowledgeBase, QUESTIONS, ranks, recall } from '../support/retrieval-fixture';
import { useTestApp } from '../setup/suite';

describe('Knowledge retrieval: customer questions reach the passage that answers them', () => {
  const suite = useTestApp({
    servers: { llm: () => LlmServer.start() },
    env: ({ llm }) => ({ LLM_BASE_URL: llm.url }),
    tenants: ['t'],
  });
  let agentId: string;
  let kb: KnowledgeBase;

  beforeAll(async () => {
    agentId = (await createAgent(suite.app, suite.t)).id;
    kb = await loadKnowledgeBase(suite.app, suite.t, agentId);
  });
  afterAll(() => kb?.site.close());

  const search = (q: string, agent = agentId, tenant = suite.t) =>
    tenant.http.get(`/api/v1/agents/${agent}/knowledge/search?q=${encodeURIComponent(q)}&limit=5`);

  it('ranks the question set: recall@5 of 0.9 or better, every core question in the top 3', async () => {
    const r = await ranks(suite.app, suite.t.workspaceId, agentId, QUESTIONS);
    const missed = QUESTIONS.filter((_, i) => r[i] === 0 || r[i] > 3).map((q, i) => `${q.q} -> ${r[i]}`);
    expect(recall(r, 5)).toBeGreaterThanOrEqual(0.9);
    const core = QUESTIONS.map((q, i) => [q, r[i]] as const).filter(([q]) => q.core);
    expect(core.filter(([, x]) => x === 0 || x > 3).map(([q]) => q.q)).toEqual([]);
    expect(missed.length).toBeLessThan(QUESTIONS.length);
  });

  it('answers natural questions over HTTP with the score and the source: data source, chunk or row', async () => {
    const hours = await search('Hi, when are you open on Saturday?');
    expect(hours.status).toBe(200);
    expect(hours.body.data[0]).toMatchObject({
      data_source: { uuid: kb.sources.faq, name: 'FAQ', type: 'copypaste' },
      record: { id: expect.any(Number), kind: 'chunk' },
      snippet: expect.stringContaining('**Saturday**'),
    });
    expect(hours.body.data[0].record.data.content).toContain('On Saturday we open at 9:00');
    expect(hours.body.data[0].score).toBeGreaterThan(0);
    const scores = (hours.body.data as { score: number }[]).map((h) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));

    const price = await search('price of the Barista Pro');
    expect(price.body.data[0]).toMatchObject({
      data_source: { uuid: kb.sources.products, name: 'Products', type: 'table' },
      record: { kind: 'row', data: { product: 'Barista Pro', price: 699, in_stock: true } },
    });
    // A typo in a short question still finds the row.
    expect((await search('barsita pro prise')).body.data[0].record.data.product).toBe('Barista Pro');
    const refunds = await search('how long do refunds take');
    expect(refunds.body.data[0].record.data.content).toContain('5 to 7 business days');
    const page = await search('can I visit the roastery?');
    expect(page.body.data[0]).toMatchObject({
      data_source: { uuid: kb.sources.site, type: 'website' },
      record: { kind: 'chunk', data: { source: expect.stringContaining('/roastery') } },
    });
    // Query syntax and quoting are only words here.
    for (const q of ["o'clock \\ C:\\path 'x' | & ! <-> (", '"refunds" -take or', ':*'])
      expect((await search(q)).status).toBe(200);
    // Words found nowhere answer nothing rather than noise.
    expect((await search('xylophone quasar')).body.data).toEqual([]);
  });

  it("puts the passages for the last turn and the conversation so far in the reply's prompt", async () => {
    const conversation = (
      await suite.t.http
        .post('/api/v1/conversations')
        .send({ agent_uuid: agentId, channel: 'chat' })
        .expect(201)
    ).body.data.uuid as string;
    const firstPassage = (): string => {
      const system = suite.llm.callsOf('reply').at(-1)!.system;
      return system.split('## Knowledge\n')[1]?.split('\n- ')[0] ?? '';
    };
    const say = (content: string) =>
      suite.t.http.post(`/api/v1/conversations/${conversation}/messages`).send({ content }).expect(201);

    suite.llm.reset();
    await say('Hi, can I visit the roastery?');
    expect(firstPassage()).toContain('guided tour at 11:00');
    expect(suite.llm.callsOf('reply')[0].system).toContain('(source: Website)');
    // Alone, "is it free?" is about something else; after the roastery question it is about the tour.
    expect((await search('is it free?')).body.data[0].record.data.content).not.toContain('The tour is free');
    await say('is it free?');
    expect(firstPassage()).toContain('The tour is free');
    await say('how much is the Barista Pro?');
    expect(firstPassage()).toContain('product: Barista Pro');
    expect(firstPassage()).toContain('price: 699');
    // The knowledge stays within its budget of the prompt (about 1200 tokens).
    const knowledge = suite.llm.callsOf('reply').at(-1)!.system.split('## Knowledge\n')[1] ?? '';
    expect(knowledge.length).toBeLessThan(1200 * 4 + 1000);
  });

  it("never finds an unassigned source or another workspace's", async () => {
    const secret = (
      await suite.t.http
        .post('/api/v1/data/import/copypaste')
        .send({ name: 'Staff only', data: 'The staff discount code is ZEBRA42 for all espresso machines.' })
    ).body.data.uuid as string;
    await waitFor(suite.t, secret);
    await suite.t.http.post(`/api/v1/data/${secret}/sync`).expect(200);
    await waitFor(suite.t, secret, synced);
    expect(JSON.stringify((await search('staff discount code zebra42')).body.data)).not.toContain('ZEBRA42');

    const other = await createTenant(suite.app);
    const theirAgent = (await createAgent(suite.app, other)).id;
    const theirs = (
      await other.http.post('/api/v1/data/import/copypaste').send({
        name: 'Their hours',
        data: 'Rival Roasters open on Saturday from 6:00 to 23:00, roastery tours daily.',
      })
    ).body.data.uuid as string;
    await waitFor(other, theirs);
    await other.http.post(`/api/v1/data/${theirs}/assign`).send({ agent_uuid: theirAgent }).expect(200);
    await other.http.post(`/api/v1/data/${theirs}/sync`).expect(200);
    await waitFor(other, theirs, synced);
    // Each side sees its own only, by the API and by the conversation ranking.
    const ours = await search('when are you open on Saturday? roastery tours rival');
    expect(ours.body.data.map((h: { data_source: { uuid: string } }) => h.data_source.uuid)).not.toContain(
      theirs,
    );
    const theirHits = await search('open on Saturday roastery', theirAgent, other);
    expect(theirHits.body.data.map((h: { data_source: { uuid: string } }) => h.data_source.uuid)).toEqual([
      theirs,
    ]);
    expect((await search('roastery', theirAgent)).status).toBe(404);
    const knowledge = suite.app.get<KnowledgeService>(KnowledgeService);
    expect(await knowledge.searchTurns(other.workspaceId, agentId, ['open on Saturday'])).toEqual([]);
    expect(await knowledge.searchTurns(suite.t.workspaceId, theirAgent, ['open on Saturday'])).toEqual([]);
  });

  it('finds a source as of its last sync, and reports sync progress of its own', async () => {
    const detail = (await suite.t.http.get(`/api/v1/data/${kb.sources.products}`)).body.data;
    expect(detail.sync_progress).toEqual({ done: 32, total: 32 });
    expect(detail.progress).toBeNull();
    const rows = (await suite.t.http.get(`/api/v1/data/${kb.sources.products}/records?per_page=100`)).body
      .data.items as {
      id: number;
      data: { product: string };
    }[];
    const pro = rows.find((r) => r.data.product === 'Barista Pro')!;
    await suite.t.http
      .put(`/api/v1/data/${kb.sources.products}/records/${pro.id}`)
      .send({ record: { product: 'Barista Pro', price: 749 } })
      .expect(200);
    await suite.t.http
      .post(`/api/v1/data/${kb.sources.products}/records`)
      .send({ record: { product: 'Latte Glass', category: 'tableware', price: 8 } })
      .expect(201);
    expect((await search('price of the Barista Pro')).body.data[0].record.data.price).toBe(699);
    expect(JSON.stringify((await search('latte glass')).body.data)).not.toContain('Latte Glass');

    const before = detail.last_synced_at as string;
    await suite.t.http.post(`/api/v1/data/${kb.sources.products}/sync`).expect(200);
    const after = await waitFor(
      suite.t,
      kb.sources.products,
      (d) => d.sync_status === 'synced' && d.last_synced_at !== before,
    );
    expect(after.sync_progress).toEqual({ done: 33, total: 33 });
    expect((await search('price of the Barista Pro')).body.data[0].record.data.price).toBe(749);
    expect((await search('latte glass')).body.data[0].record.data.product).toBe('Latte Glass');
    // Other sources' content is untouched by this sync.
    expect((await search('how long do refunds take')).body.data[0].record.data.content).toContain('5 to 7');
  });
});
