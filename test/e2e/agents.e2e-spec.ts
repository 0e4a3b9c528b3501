import { createTenant, TestTenant } from '../factories/workspace.factory';
import { createAgent } from '../factories/agent.factory';
import { useTestApp } from '../setup/suite';

describe('Agents: profile CRUD, list, flow catalog', () => {
  const suite = useTestApp({ tenants: ['tenant'] });

  describe('POST /agents', () => {
    it('creates with only a name: status pending, every collection empty, 201', async () => {
      const res = await suite.tenant.http.post('/api/v1/agents').send({ name: 'Ava' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ success: true, message: 'Created' });
      const a = res.body.data;
      expect(a).toMatchObject({
        agent_uuid: expect.any(String),
        uuid: a.agent_uuid,
        name: 'Ava',
        status: 'pending',
        description: null,
        appointment_scheduling_enabled: false,
        appointment_scheduling_randomly: false,
        settings: { voice: {}, text: {}, memorize: {}, evaluation: {} },
        guidelines: [],
        notes: [],
        procedures: [],
        training: [],
        intents: [],
        webhooks: [],
        routing_rules: [],
        guard_rules: [],
        phone_numbers: [],
        channels: [],
        appointments: { scheduling_enabled: false, scheduling_randomly: false },
      });
      expect(a.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    it('stores every profile field of the specification', async () => {
      const body = {
        name: 'Full',
        description: 'd',
        company_name: 'Acme',
        role: 'Sales',
        objective: 'o',
        tone: 'friendly',
        behavior_guidelines: 'b',
        company_service: 'cs',
        topic: 't',
        length_detail: 'short',
        interest_of_product: 'i',
        negative_response: 'n',
        custom_prompt: 'p',
        language: 'en',
        speed: 'normal',
        timezone: 'Europe/Paris',
        custom_llm_url: 'https://llm.example.com/v1',
        recommendations: 'r',
        status: 'ready',
        appointment_scheduling_enabled: true,
        appointment_scheduling_randomly: true,
        settings: { voice: { voice_id: 'alloy' }, text: { max: 1 } },
      };
      const res = await suite.tenant.http.post('/api/v1/agents').send(body);
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({
        ...body,
        settings: { voice: { voice_id: 'alloy' }, text: { max: 1 }, memorize: {}, evaluation: {} },
      });
    });

    it.each([
      [{}, 'VALIDATION_ERROR', 'name'],
      [{ name: '' }, 'VALIDATION_ERROR', 'name'],
      [{ name: 42 }, 'INVALID_FORMAT', 'name'],
      [{ name: 'x'.repeat(201) }, 'INVALID_FORMAT', 'name'],
      [{ name: 'a', status: 'archived' }, 'INVALID_FORMAT', 'status'],
      [{ name: 'a', timezone: 'Mars/Olympus' }, 'INVALID_FORMAT', 'timezone'],
      [{ name: 'a', custom_llm_url: 'not a url' }, 'INVALID_FORMAT', 'custom_llm_url'],
      [
        { name: 'a', appointment_scheduling_enabled: 'yes' },
        'INVALID_FORMAT',
        'appointment_scheduling_enabled',
      ],
      [{ name: 'a', role: 'r'.repeat(256) }, 'INVALID_FORMAT', 'role'],
      [{ name: 'a', settings: 'x' }, 'INVALID_FORMAT', 'settings'],
      [{ name: 'a', settings: { voice: 'x' } }, 'INVALID_FORMAT', 'settings.voice'],
      [{ name: 'a', tone: 5 }, 'INVALID_FORMAT', 'tone'],
    ])('rejects %j with %s on %s', async (body, code, field) => {
      const res = await suite.tenant.http.post('/api/v1/agents').send(body);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ success: false, error: { code, field } });
    });
  });

  describe('GET, PATCH, DELETE /agents/{uuid}', () => {
    it('reads the agent; malformed uuid is 422 INVALID_UUID, unknown is 404', async () => {
      const a = await createAgent(suite.tenant, { name: 'Readable' });
      const res = await suite.tenant.http.get(`/api/v1/agents/${a.agent_uuid}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(a);
      const bad = await suite.tenant.http.get('/api/v1/agents/not-a-uuid');
      expect(bad.status).toBe(422);
      expect(bad.body.error).toMatchObject({ code: 'INVALID_UUID', field: 'uuid' });
      const missing = await suite.tenant.http.get('/api/v1/agents/01890000-0000-7000-8000-000000000000');
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('RESOURCE_NOT_FOUND');
    });

    it('PATCH changes only the keys sent and merges settings blocks key by key', async () => {
      const a = await createAgent(suite.tenant, {
        name: 'Patchable',
        role: 'Support',
        tone: 'calm',
        settings: { voice: { voice_id: 'alloy', speed: 1 }, text: { max: 100 } },
      });
      const res = await suite.tenant.http
        .patch(`/api/v1/agents/${a.agent_uuid}`)
        .send({ tone: 'cheerful', status: 'paused', description: null, settings: { voice: { speed: 2 } } });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        name: 'Patchable',
        role: 'Support',
        tone: 'cheerful',
        status: 'paused',
        description: null,
        settings: {
          voice: { voice_id: 'alloy', speed: 2 },
          text: { max: 100 },
          memorize: {},
          evaluation: {},
        },
      });
      for (const status of ['pending', 'ready', 'in_progress', 'paused', 'completed']) {
        const r = await suite.tenant.http.patch(`/api/v1/agents/${a.agent_uuid}`).send({ status });
        expect(r.body.data.status).toBe(status);
      }
    });

    it.each([
      [{ name: null }, 'VALIDATION_ERROR', 'name'],
      [{ name: '' }, 'VALIDATION_ERROR', 'name'],
      [{ status: 'done' }, 'INVALID_FORMAT', 'status'],
      [{ status: null }, 'VALIDATION_ERROR', 'status'],
      [{ settings: { text: [] } }, 'INVALID_FORMAT', 'settings.text'],
      [{ appointment_scheduling_randomly: 1 }, 'INVALID_FORMAT', 'appointment_scheduling_randomly'],
    ])('PATCH rejects %j with %s on %s', async (body, code, field) => {
      const a = await createAgent(suite.tenant);
      const res = await suite.tenant.http.patch(`/api/v1/agents/${a.agent_uuid}`).send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    });

    it('DELETE removes the agent: 200 data null, then 404', async () => {
      const a = await createAgent(suite.tenant);
      const res = await suite.tenant.http.delete(`/api/v1/agents/${a.agent_uuid}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, message: 'Deleted', data: null });
      expect((await suite.tenant.http.get(`/api/v1/agents/${a.agent_uuid}`)).status).toBe(404);
      expect((await suite.tenant.http.delete(`/api/v1/agents/${a.agent_uuid}`)).status).toBe(404);
    });
  });

  describe('GET /agents', () => {
    let own: TestTenant;
    beforeAll(async () => {
      own = await createTenant(suite.app);
      await createAgent(own, { name: 'Alpha', company_name: 'Globex', role: 'Sales', status: 'ready' });
      await createAgent(own, {
        name: 'Beta',
        company_name: 'Initech',
        role: 'Support rep',
        status: 'paused',
      });
      await createAgent(own, { name: 'Gamma 100%', company_name: 'Acme', role: 'Billing', status: 'ready' });
    });

    it('lists newest first with the pagination object', async () => {
      const res = await own.http.get('/api/v1/agents');
      expect(res.status).toBe(200);
      expect(res.body.data.items.map((a: any) => a.name)).toEqual(['Gamma 100%', 'Beta', 'Alpha']);
      expect(res.body.data.pagination).toEqual({ page: 1, per_page: 20, total: 3, total_pages: 1 });
      expect(res.body.data.items[0].routing_rules).toEqual([]);
    });

    it('filters by status and searches name, company and role case-insensitively', async () => {
      const ready = await own.http.get('/api/v1/agents?status=ready');
      expect(ready.body.data.items.map((a: any) => a.name)).toEqual(['Gamma 100%', 'Alpha']);
      const byCompany = await own.http.get('/api/v1/agents?search=GLOBEX');
      expect(byCompany.body.data.items.map((a: any) => a.name)).toEqual(['Alpha']);
      const byRole = await own.http.get('/api/v1/agents?search=support');
      expect(byRole.body.data.items.map((a: any) => a.name)).toEqual(['Beta']);
      const literalPercent = await own.http.get('/api/v1/agents?search=100%25');
      expect(literalPercent.body.data.items.map((a: any) => a.name)).toEqual(['Gamma 100%']);
      const both = await own.http.get('/api/v1/agents?status=paused&search=alpha');
      expect(both.body.data.items).toEqual([]);
    });

    it('pages and caps per_page at 100', async () => {
      const p2 = await own.http.get('/api/v1/agents?per_page=2&page=2');
      expect(p2.body.data.items.map((a: any) => a.name)).toEqual(['Alpha']);
      expect(p2.body.data.pagination).toEqual({ page: 2, per_page: 2, total: 3, total_pages: 2 });
      const capped = await own.http.get('/api/v1/agents?per_page=500');
      expect(capped.body.data.pagination.per_page).toBe(100);
    });

    it.each([
      ['status=archived', 'status'],
      ['page=0', 'page'],
      ['per_page=abc', 'per_page'],
    ])('rejects ?%s with INVALID_FORMAT on %s', async (qs, field) => {
      const res = await own.http.get(`/api/v1/agents?${qs}`);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'INVALID_FORMAT', field });
    });
  });

  describe('GET /flow/agents', () => {
    it('lists only ready agents', async () => {
      const t = await createTenant(suite.app);
      const ready = await createAgent(t, { name: 'Ready one', role: 'Sales', status: 'ready' });
      await createAgent(t, { name: 'Pending one' });
      const res = await t.http.get('/api/v1/flow/agents');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        message: 'OK',
        data: [{ uuid: ready.agent_uuid, name: 'Ready one', role: 'Sales', status: 'ready' }],
      });
    });

    it('answers the short 404 body when no agent is ready', async () => {
      const t = await createTenant(suite.app);
      await createAgent(t, { name: 'Pending one' });
      const res = await t.http.get('/api/v1/flow/agents');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, message: 'No ready agent found', data: [] });
    });
  });
});
