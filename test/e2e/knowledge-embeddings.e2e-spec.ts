import { DataSource as Db } from 'typeorm';
import { KnowledgeSearchRepository } from '@/modules/knowledge/knowledge-search.repository';
import { createAgent, synced, waitFor } from '../factories/knowledge.factory';
import { EmbeddingsServer } from '../support/embeddings-server';
import { useTestApp } from '../setup/suite';

describe('Knowledge retrieval with an embeddings model: vectors from the sync, fused with word ranking', () => {
  const suite = useTestApp({
    servers: { embeddings: () => EmbeddingsServer.start() },
    env: ({ embeddings }) => ({
      EMBEDDINGS_BASE_URL: embeddings.url,
      EMBEDDINGS_API_KEY: 'emb-key',
      EMBEDDINGS_MODEL: 'test-embed-64',
    }),
    tenants: ['t'],
  });

  const ROWS = [
    { topic: 'Returns', text: 'Refunds are paid within five business days after we receive the item.' },
    { topic: 'Shop', text: 'The shop is open Monday to Friday from nine to five.' },
    { topic: 'Delivery', text: 'Parcels are sent with a tracking number by express courier.' },
    { topic: 'Staff', text: 'Employees get 28 days of annual leave and a training budget.' },
  ];

  async function source(agentId: string): Promise<string> {
    const id = (
      await suite.t.http.post('/api/v1/data/tables').send({
        name: 'Policies',
        columns: [
          { name: 'topic', type: 'text' },
          { name: 'text', type: 'text' },
        ],
      })
    ).body.data.uuid as string;
    await suite.t.http.post(`/api/v1/data/${id}/records`).send({ records: ROWS }).expect(201);
    await suite.t.http.post(`/api/v1/data/${id}/assign`).send({ agent_uuid: agentId }).expect(200);
    return id;
  }

  const search = (agentId: string, q: string) =>
    suite.t.http
      .get(`/api/v1/agents/${agentId}/knowledge/search?q=${encodeURIComponent(q)}&limit=3`)
      .expect(200);

  it('embeds every passage in the sync job and finds by meaning what words alone miss', async () => {
    const agentId = (await createAgent(suite.app, suite.t)).id;
    const id = await source(agentId);
    suite.embeddings.requests.length = 0;
    await suite.t.http.post(`/api/v1/data/${id}/sync`).expect(200);
    const done = await waitFor(suite.t, id, synced);
    expect(done).toMatchObject({ sync_status: 'synced', sync_error: null });
    const embedded = suite.embeddings.requests.flatMap((r) => r.input);
    expect(embedded).toHaveLength(ROWS.length);
    expect(suite.embeddings.requests[0]).toMatchObject({
      model: 'test-embed-64',
      authorization: 'Bearer emb-key',
    });
    const stored = (await suite.app.get<Db>(Db).query(
      `SELECT count(*)::int AS n, min(cardinality(embedding))::int AS dims FROM knowledge_index
         WHERE workspace_id = $1 AND data_source_id = $2 AND embedding_model = 'test-embed-64'`,
      [suite.t.workspaceId, id],
    )) as { n: number; dims: number }[];
    expect(stored[0]).toEqual({ n: ROWS.length, dims: 64 });

    // No word of the question is in the passage: only the vectors connect "reimbursed" with "Refunds".
    const words = suite.app.get<KnowledgeSearchRepository>(KnowledgeSearchRepository);
    const question = 'When will I be reimbursed?';
    const lexical = await words.search(
      suite.t.workspaceId,
      agentId,
      [{ text: question, weight: 1 }],
      question,
      3,
    );
    expect(lexical.map((h) => h.data.topic)).not.toContain('Returns');
    const hits = (await search(agentId, 'When will I be reimbursed?')).body.data;
    expect(hits[0]).toMatchObject({ record: { kind: 'row', data: { topic: 'Returns' } } });
    // Both rankings agree on a plain keyword: it comes first with the fused score.
    const both = (await search(agentId, 'refunds')).body.data;
    expect(both[0].record.data.topic).toBe('Returns');
    expect(both[0].score).toBeCloseTo(2 / 61, 4);
  });

  it('keeps the sync and the word ranking when the model fails', async () => {
    const agentId = (await createAgent(suite.app, suite.t)).id;
    const id = await source(agentId);
    suite.embeddings.failing = true;
    try {
      await suite.t.http.post(`/api/v1/data/${id}/sync`).expect(200);
      const done = await waitFor(suite.t, id, synced);
      expect(done.sync_status).toBe('synced');
      expect(done.sync_error).toMatch(
        /^embeddings failed \(search by words only\): Embeddings answered HTTP 503/,
      );
      const hits = (await search(agentId, 'how long do refunds take')).body.data;
      expect(hits[0].record.data.topic).toBe('Returns');
    } finally {
      suite.embeddings.failing = false;
    }
    // The next sync fills in the vectors.
    await suite.t.http.post(`/api/v1/data/${id}/sync`).expect(200);
    await waitFor(suite.t, id, (d) => d.sync_status === 'synced' && d.sync_error === null);
    expect((await search(agentId, 'When will I be reimbursed?')).body.data[0].record.data.topic).toBe(
      'Returns',
    );
  });
});
