import { createAgent, synced, waitFor } from '../factories/knowledge.factory';
import { useTestApp } from '../setup/suite';

const UNKNOWN = '01936f0e-7a8b-7c3d-9e2f-1a2b3c4d5e6f';

describe('Knowledge: tables, records, paste, assign, sync, search', () => {
  const suite = useTestApp({ tenants: ['tenant', 'other'] });

  const columns = [
    { name: 'product', type: 'text' },
    { name: 'price', type: 'number' },
    { name: 'since', type: 'date' },
    { name: 'active', type: 'boolean' },
    { name: 'meta', type: 'json' },
    { name: 'link', type: 'url' },
  ];

  async function createTable(t = suite.tenant): Promise<string> {
    const res = await t.http
      .post('/api/v1/data/tables')
      .send({ name: 'Prices', description: 'all', columns });
    expect(res.status).toBe(201);
    return (res.body as { data: { uuid: string } }).data.uuid;
  }

  it('documents every knowledge route in the OpenAPI document', async () => {
    const res = await suite.app.http('ops.example.test').get('/docs/openapi.json');
    expect(res.status).toBe(200);
    const paths = Object.keys(res.body.paths as object);
    for (const p of [
      '/api/v1/data',
      '/api/v1/data/tables',
      '/api/v1/data/{uuid}',
      '/api/v1/data/{uuid}/fields',
      '/api/v1/data/{uuid}/records',
      '/api/v1/data/{uuid}/records/{record}',
      '/api/v1/data/import/copypaste',
      '/api/v1/data/import/file',
      '/api/v1/data/import/website',
      '/api/v1/data/{uuid}/assign',
      '/api/v1/data/{uuid}/assign/{agentUuid}',
      '/api/v1/data/{uuid}/sync',
      '/api/v1/agents/{uuid}/knowledge/search',
    ])
      expect(paths).toContain(p);
    const file = res.body.paths['/api/v1/data/import/file'].post;
    expect(Object.keys(file.requestBody.content)).toEqual(['multipart/form-data']);
    expect(file.responses['422']).toBeDefined();
  });

  describe('tables', () => {
    it('creates a typed table and shows its columns, fields and count', async () => {
      const res = await suite.tenant.http.post('/api/v1/data/tables').send({ name: 'Prices', columns });
      expect(res.status).toBe(201);
      const data = res.body.data;
      expect(data).toMatchObject({
        name: 'Prices',
        type: 'table',
        status: 2,
        process: 'ready',
        records_count: 0,
        sync_status: 'never',
        last_synced_at: null,
        agent_uuids: [],
      });
      expect(data.columns).toEqual(columns.map((c, i) => ({ id: i + 1, ...c })));
      const fields = await suite.tenant.http.get(`/api/v1/data/${data.uuid}/fields`);
      expect(fields.status).toBe(200);
      expect(fields.body.data.columns).toHaveLength(6);
      const detail = await suite.tenant.http.get(`/api/v1/data/${data.uuid}`);
      expect(detail.body.data.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    it('refuses bad schemas naming the field', async () => {
      const cases: [unknown, string, string][] = [
        [{ columns }, 'VALIDATION_ERROR', 'name'],
        [{ name: 'x' }, 'VALIDATION_ERROR', 'columns'],
        [{ name: 'x', columns: [] }, 'VALIDATION_ERROR', 'columns'],
        [{ name: 'x', columns: [{ name: 'a', type: 'money' }] }, 'INVALID_FORMAT', 'columns.0.type'],
        [{ name: 'x', columns: [{ type: 'text' }] }, 'VALIDATION_ERROR', 'columns.0.name'],
        [
          {
            name: 'x',
            columns: [
              { name: 'a', type: 'text' },
              { name: 'a', type: 'number' },
            ],
          },
          'INVALID_FORMAT',
          'columns.1.name',
        ],
      ];
      for (const [body, code, field] of cases) {
        const res = await suite.tenant.http.post('/api/v1/data/tables').send(body as object);
        expect(res.status).toBe(422);
        expect(res.body.error).toMatchObject({ code, field });
      }
    });

    it('lists newest first, paginated, and never shows another workspace', async () => {
      const id = await createTable();
      const theirs = await createTable(suite.other);
      const res = await suite.tenant.http.get('/api/v1/data?per_page=100');
      expect(res.status).toBe(200);
      const uuids = res.body.data.items.map((d: { uuid: string }) => d.uuid);
      expect(uuids[0]).toBe(id);
      expect(uuids).not.toContain(theirs);
      expect(res.body.data.pagination).toMatchObject({ page: 1, per_page: 100 });
    });

    it('answers 404 for another workspace and 422 for a malformed uuid', async () => {
      const theirs = await createTable(suite.other);
      for (const path of [
        `/api/v1/data/${theirs}`,
        `/api/v1/data/${theirs}/fields`,
        `/api/v1/data/${theirs}/records`,
      ]) {
        const res = await suite.tenant.http.get(path);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('RESOURCE_NOT_FOUND');
      }
      expect((await suite.tenant.http.delete(`/api/v1/data/${theirs}`)).status).toBe(404);
      expect(
        (await suite.tenant.http.post(`/api/v1/data/${theirs}/records`).send({ record: { price: 1 } }))
          .status,
      ).toBe(404);
      expect(
        (await suite.tenant.http.put(`/api/v1/data/${theirs}/records/1`).send({ record: { price: 1 } }))
          .status,
      ).toBe(404);
      expect((await suite.tenant.http.delete(`/api/v1/data/${theirs}/records/1`)).status).toBe(404);
      const bad = await suite.tenant.http.get('/api/v1/data/not-a-uuid');
      expect(bad.status).toBe(422);
      expect(bad.body.error).toMatchObject({ code: 'INVALID_UUID', field: 'uuid' });
      expect((await suite.tenant.http.get(`/api/v1/data/${UNKNOWN}`)).status).toBe(404);
    });

    it('deletes a table with its records', async () => {
      const id = await createTable();
      await suite.tenant.http.post(`/api/v1/data/${id}/records`).send({ record: { product: 'a' } });
      const res = await suite.tenant.http.delete(`/api/v1/data/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, message: 'Data source deleted', data: null });
      expect((await suite.tenant.http.get(`/api/v1/data/${id}`)).status).toBe(404);
    });
  });

  describe('records', () => {
    it('adds one, a batch, lists, updates and deletes', async () => {
      const id = await createTable();
      const one = await suite.tenant.http.post(`/api/v1/data/${id}/records`).send({
        record: {
          product: 'Basic',
          price: 19,
          since: '2026-01-01',
          active: true,
          meta: { tier: 1 },
          link: 'https://x.io/basic',
        },
      });
      expect(one.status).toBe(201);
      expect(one.body.data).toHaveLength(1);
      expect(one.body.data[0]).toMatchObject({
        id: expect.any(Number),
        data: { product: 'Basic', price: 19 },
      });
      const batch = await suite.tenant.http.post(`/api/v1/data/${id}/records`).send({
        records: [
          { product: 'Pro', price: 49 },
          { product: 'Team', price: null },
        ],
      });
      expect(batch.status).toBe(201);
      expect(batch.body.data).toHaveLength(2);

      const list = await suite.tenant.http.get(`/api/v1/data/${id}/records?per_page=2`);
      expect(list.status).toBe(200);
      expect(list.body.data.pagination).toEqual({ page: 1, per_page: 2, total: 3, total_pages: 2 });
      expect(list.body.data.items.map((r: { data: { product: string } }) => r.data.product)).toEqual([
        'Basic',
        'Pro',
      ]);

      const recordId = one.body.data[0].id as number;
      const updated = await suite.tenant.http
        .put(`/api/v1/data/${id}/records/${recordId}`)
        .send({ record: { price: 21 } });
      expect(updated.status).toBe(200);
      expect(updated.body.data.data).toMatchObject({ product: 'Basic', price: 21 });

      const detail = await suite.tenant.http.get(`/api/v1/data/${id}`);
      expect(detail.body.data.records_count).toBe(3);

      expect((await suite.tenant.http.delete(`/api/v1/data/${id}/records/${recordId}`)).status).toBe(200);
      const gone = await suite.tenant.http.delete(`/api/v1/data/${id}/records/${recordId}`);
      expect(gone.status).toBe(404);
      expect(gone.body.error.code).toBe('RESOURCE_NOT_FOUND');
    });

    it('checks each value against its column type, naming the column', async () => {
      const id = await createTable();
      const cases: [object, string, string][] = [
        [{ record: { price: 'cheap' } }, 'INVALID_FORMAT', 'record.price'],
        [{ record: { since: 'tomorrow' } }, 'INVALID_FORMAT', 'record.since'],
        [{ record: { active: 'yes' } }, 'INVALID_FORMAT', 'record.active'],
        [{ record: { link: 'not a url' } }, 'INVALID_FORMAT', 'record.link'],
        [{ record: { product: 5 } }, 'INVALID_FORMAT', 'record.product'],
        [{ record: { colour: 'red' } }, 'VALIDATION_ERROR', 'record.colour'],
        [{ records: [{ price: 1 }, { price: 'x' }] }, 'INVALID_FORMAT', 'records.1.price'],
        [{}, 'VALIDATION_ERROR', 'record'],
        [{ record: 'x' }, 'INVALID_FORMAT', 'record'],
      ];
      for (const [body, code, field] of cases) {
        const res = await suite.tenant.http.post(`/api/v1/data/${id}/records`).send(body);
        expect(res.status).toBe(422);
        expect(res.body.error).toMatchObject({ code, field });
      }
      // All or nothing: the batch with one bad record wrote nothing.
      expect((await suite.tenant.http.get(`/api/v1/data/${id}`)).body.data.records_count).toBe(0);
      const big = await suite.tenant.http
        .post(`/api/v1/data/${id}/records`)
        .send({ records: Array.from({ length: 1001 }, () => ({ price: 1 })) });
      expect(big.status).toBe(422);
      expect(big.body.error.field).toBe('records');

      const put = await suite.tenant.http
        .put(`/api/v1/data/${id}/records/1`)
        .send({ record: { price: 'x' } });
      expect(put.status).toBe(422);
      expect(put.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'record.price' });
      const badId = await suite.tenant.http
        .put(`/api/v1/data/${id}/records/abc`)
        .send({ record: { price: 1 } });
      expect(badId.status).toBe(422);
      expect(badId.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'record' });
      // 2^53 + 1 would read as 2^53 in JavaScript: refused rather than naming another record.
      const unsafe = await suite.tenant.http.delete(`/api/v1/data/${id}/records/9007199254740993`);
      expect(unsafe.status).toBe(422);
      expect(unsafe.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'record' });
    });
  });

  describe('paste import, assign, sync and search', () => {
    it('imports pasted text as chunks, answering at once with status 0', async () => {
      const res = await suite.tenant.http.post('/api/v1/data/import/copypaste').send({
        name: 'Hours',
        data: 'We are open Monday to Friday from nine to five.\n\nParking is free for customers.',
      });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ type: 'copypaste', status: 0, process: 'queued' });
      const done = await waitFor(suite.tenant, res.body.data.uuid);
      expect(done).toMatchObject({ status: 2, process: 'ready', error: null, records_count: 1 });
      expect(done.columns.map((c) => c.name)).toEqual(['content', 'source', 'position']);
      const records = await suite.tenant.http.get(`/api/v1/data/${res.body.data.uuid}/records`);
      expect(records.body.data.items[0].data).toMatchObject({ source: 'copypaste', position: 0 });
      expect(records.body.data.items[0].data.content).toContain('Parking is free');
    });

    it('answers import validation failures with the short body', async () => {
      const res = await suite.tenant.http.post('/api/v1/data/import/copypaste').send({ description: 'x' });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ success: false, message: expect.stringContaining(' | '), data: [] });
      expect(res.body.message).toMatch(/name/);
      expect(res.body.message).toMatch(/data/);
      const web = await suite.tenant.http
        .post('/api/v1/data/import/website')
        .send({ name: 'x', url: 'ftp://x', depth: 9 });
      expect(web.status).toBe(422);
      expect(web.body).toEqual({
        success: false,
        message: expect.stringMatching(/url.*\|.*depth/),
        data: [],
      });
      // Other statuses keep the general body.
      const anon = await suite.app
        .http(suite.tenant.host)
        .post('/api/v1/data/import/copypaste')
        .send({ name: 'x', data: 'y' });
      expect(anon.status).toBe(401);
      expect(anon.body.error.code).toBe('MISSING_AUTH_TOKEN');
    });

    it('makes data searchable only after assign and sync, as of the sync', async () => {
      const agent = await createAgent(suite.app, suite.tenant);
      const otherAgent = await createAgent(suite.app, suite.tenant, 'Sales');
      const paste = await suite.tenant.http.post('/api/v1/data/import/copypaste').send({
        name: 'Returns',
        data: 'Refunds are issued within fourteen days of a return. Shipping labels are printed at the desk.',
      });
      const id = paste.body.data.uuid as string;
      await waitFor(suite.tenant, id);
      const table = await createTable();
      await suite.tenant.http.post(`/api/v1/data/${table}/records`).send({
        records: [
          { product: 'Gizmo deluxe', price: 99 },
          { product: 'Widget', price: 5 },
        ],
      });

      const search = (q: string, a = agent.id) =>
        suite.tenant.http.get(`/api/v1/agents/${a}/knowledge/search?q=${encodeURIComponent(q)}&limit=5`);
      expect((await search('refunds')).body.data).toEqual([]);

      const assigned = await suite.tenant.http
        .post(`/api/v1/data/${id}/assign`)
        .send({ agent_uuid: agent.id });
      expect(assigned.status).toBe(200);
      expect(assigned.body.data.agent_uuids).toEqual([agent.id]);
      await suite.tenant.http.post(`/api/v1/data/${table}/assign`).send({ agent_uuid: agent.id });
      // Assigned but not synced: nothing yet.
      expect((await search('refunds')).body.data).toEqual([]);

      const sync = await suite.tenant.http.post(`/api/v1/data/${id}/sync`);
      expect(sync.status).toBe(200);
      expect(['queued', 'syncing', 'synced']).toContain(sync.body.data.sync_status);
      const after = await waitFor(suite.tenant, id, synced);
      expect(after.sync_status).toBe('synced');
      expect(after.last_synced_at).toEqual(expect.any(String));
      await suite.tenant.http.post(`/api/v1/data/${table}/sync`);
      await waitFor(suite.tenant, table, synced);

      const hits = await search('refund');
      expect(hits.status).toBe(200);
      expect(hits.body.data).toHaveLength(1);
      expect(hits.body.data[0]).toMatchObject({
        data_source: { uuid: id, name: 'Returns' },
        record: { id: expect.any(Number), data: { source: 'copypaste', position: 0 } },
        snippet: expect.stringContaining('**Refunds**'),
        score: expect.any(Number),
      });
      const gizmo = await search('gizmo');
      expect(gizmo.body.data[0]).toMatchObject({
        data_source: { uuid: table },
        record: { data: { product: 'Gizmo deluxe' } },
      });

      // The other agent sees nothing: the data is not assigned to it.
      expect((await search('refund', otherAgent.id)).body.data).toEqual([]);

      // A change after the sync is invisible until the next one.
      const recordId = (await suite.tenant.http.get(`/api/v1/data/${table}/records`)).body.data.items[1]
        .id as number;
      await suite.tenant.http
        .put(`/api/v1/data/${table}/records/${recordId}`)
        .send({ record: { product: 'Sprocket' } });
      expect((await search('sprocket')).body.data).toEqual([]);
      expect((await search('widget')).body.data).toHaveLength(1);
      const before = (await suite.tenant.http.get(`/api/v1/data/${table}`)).body.data
        .last_synced_at as string;
      await suite.tenant.http.post(`/api/v1/data/${table}/sync`);
      await waitFor(suite.tenant, table, (d) => d.sync_status === 'synced' && d.last_synced_at !== before);
      expect((await search('sprocket')).body.data).toHaveLength(1);
      expect((await search('widget')).body.data).toEqual([]);

      // Unassigning hides the source at once.
      const un = await suite.tenant.http.delete(`/api/v1/data/${id}/assign/${agent.id}`);
      expect(un.status).toBe(200);
      expect(un.body.data.agent_uuids).toEqual([]);
      expect((await search('refund')).body.data).toEqual([]);
      expect((await suite.tenant.http.delete(`/api/v1/data/${id}/assign/${agent.id}`)).status).toBe(404);
    });

    it('ranks the better match first', async () => {
      const agent = await createAgent(suite.app, suite.tenant);
      const paste = await suite.tenant.http.post('/api/v1/data/import/copypaste').send({
        name: 'Mixed',
        data:
          'Delivery takes three days.\n\n' +
          'x'.repeat(1300) +
          '\n\nDelivery delivery delivery: express delivery is next day and delivery is tracked.',
      });
      await waitFor(suite.tenant, paste.body.data.uuid);
      await suite.tenant.http
        .post(`/api/v1/data/${paste.body.data.uuid}/assign`)
        .send({ agent_uuid: agent.id });
      // Two syncs at once take turns: the index holds each chunk once.
      await Promise.all([
        suite.tenant.http.post(`/api/v1/data/${paste.body.data.uuid}/sync`),
        suite.tenant.http.post(`/api/v1/data/${paste.body.data.uuid}/sync`),
      ]);
      await waitFor(suite.tenant, paste.body.data.uuid, synced);
      const res = await suite.tenant.http.get(`/api/v1/agents/${agent.id}/knowledge/search?q=delivery`);
      expect(res.body.data).toHaveLength(2);
      expect(res.body.data[0].record.data.content).toContain('express');
      expect(res.body.data[0].score).toBeGreaterThanOrEqual(res.body.data[1].score);
      // Deleting the data source takes it out of the agent's index too.
      expect((await suite.tenant.http.delete(`/api/v1/data/${paste.body.data.uuid}`)).status).toBe(200);
      const after = await suite.tenant.http.get(`/api/v1/agents/${agent.id}/knowledge/search?q=delivery`);
      expect(after.body.data).toEqual([]);
    });

    it('validates assign, search and the agent, and hides other workspaces', async () => {
      const id = await createTable();
      const agent = await createAgent(suite.app, suite.tenant);
      const theirAgent = await createAgent(suite.app, suite.other);
      const missing = await suite.tenant.http.post(`/api/v1/data/${id}/assign`).send({});
      expect(missing.status).toBe(422);
      expect(missing.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'agent_uuid' });
      const bad = await suite.tenant.http.post(`/api/v1/data/${id}/assign`).send({ agent_uuid: 'nope' });
      expect(bad.body.error).toMatchObject({ code: 'INVALID_UUID', field: 'agent_uuid' });
      const unknown = await suite.tenant.http
        .post(`/api/v1/data/${id}/assign`)
        .send({ agent_uuid: theirAgent.id });
      expect(unknown.status).toBe(422);
      expect(unknown.body.error.field).toBe('agent_uuid');

      const theirs = await createTable(suite.other);
      expect(
        (await suite.tenant.http.post(`/api/v1/data/${theirs}/assign`).send({ agent_uuid: agent.id })).status,
      ).toBe(404);
      expect((await suite.tenant.http.post(`/api/v1/data/${theirs}/sync`)).status).toBe(404);
      expect((await suite.tenant.http.delete(`/api/v1/data/${theirs}/assign/${agent.id}`)).status).toBe(404);

      // Unassigning what the agent does not hold answers the same 404 whatever the agent UUID names.
      const bystander = await createAgent(suite.app, suite.tenant);
      for (const agentUuid of [UNKNOWN, bystander.id, theirAgent.id]) {
        const un = await suite.tenant.http.delete(`/api/v1/data/${id}/assign/${agentUuid}`);
        expect(un.status).toBe(404);
        expect(un.body).toMatchObject({
          message: 'Assignment not found',
          error: { code: 'RESOURCE_NOT_FOUND' },
        });
      }
      expect((await suite.tenant.http.post(`/api/v1/data/${UNKNOWN}/sync`)).status).toBe(404);

      const search = await suite.tenant.http.get(`/api/v1/agents/${theirAgent.id}/knowledge/search?q=x`);
      expect(search.status).toBe(404);
      expect(search.body.error.code).toBe('RESOURCE_NOT_FOUND');
      const noQ = await suite.tenant.http.get(`/api/v1/agents/${agent.id}/knowledge/search`);
      expect(noQ.status).toBe(422);
      expect(noQ.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'q' });
      const badLimit = await suite.tenant.http.get(
        `/api/v1/agents/${agent.id}/knowledge/search?q=x&limit=500`,
      );
      expect(badLimit.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'limit' });
      const badAgent = await suite.tenant.http.get('/api/v1/agents/xyz/knowledge/search?q=x');
      expect(badAgent.body.error).toMatchObject({ code: 'INVALID_UUID', field: 'uuid' });
    });
  });
});
