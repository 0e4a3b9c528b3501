import { createAgent } from '../factories/agent.factory';
import { createContact } from '../factories/contact.factory';
import { useTestApp } from '../setup/suite';

/** Inputs that the database cannot take must be refused as client errors, never reach it as a 500. */
describe('Hostile input across routes', () => {
  const suite = useTestApp({ tenants: ['tenant'] });

  describe('error wording', () => {
    it('says a missing field is required and a number of the right shape is not one of its country', async () => {
      const missing = await suite.tenant.http.post('/api/v1/agents').send({}).expect(422);
      expect(missing.body).toMatchObject({
        message: 'name is required',
        error: { code: 'VALIDATION_ERROR', field: 'name' },
      });
      const phone = await suite.tenant.http
        .post('/api/v1/contacts')
        .send({ name: 'Ada', phone_number: '+11234567890' })
        .expect(422);
      expect(phone.body).toMatchObject({
        message: 'phone_number: +11234567890 is not a valid US number',
        error: { code: 'INVALID_FORMAT', field: 'phone_number' },
      });
    });

    it('says a number of the right shape is not one of its country wherever a route takes one', async () => {
      const http = suite.tenant.http;
      const agent_uuid = '0190f0c1-0000-7000-8000-000000000009';
      const sends = [
        http.post('/api/v1/call').send({ agent_uuid, to: '+11234567890' }),
        http.post('/api/v1/sms/send').send({ agent_uuid, to: '+11234567890', body: 'Hi' }),
        http
          .post('/api/v1/whatsapp/template')
          .send({ agent_uuid, to: '+11234567890', template_uuid: agent_uuid }),
      ];
      for (const res of await Promise.all(sends))
        expect({ status: res.status, body: res.body }).toMatchObject({
          status: 422,
          body: {
            message: 'to: +11234567890 is not a valid US number',
            error: { code: 'INVALID_FORMAT', field: 'to' },
          },
        });
      const flow = (await http.post('/api/v1/flows').send({ name: 'numbers' }).expect(201)).body.data;
      await http
        .post(`/api/v1/flow/${flow.uuid}/steps`)
        .send({ kind: 'trigger', trigger_key: 'contact_created', config: {} })
        .expect(201);
      const step = await http
        .post(`/api/v1/flow/${flow.uuid}/steps`)
        .send({ kind: 'action', action_key: 'send_sms', config: { to: '+11234567890' } })
        .expect(422);
      expect(step.body).toMatchObject({
        message: 'config.to: +11234567890 is not a valid US number',
        error: { code: 'INVALID_FORMAT', field: 'config.to' },
      });
    });
  });

  describe('the NUL character', () => {
    it('in a body string is 422 INVALID_FORMAT naming the field, and nothing is stored', async () => {
      const res = await suite.tenant.http.post('/api/v1/agents').send({ name: 'Bad\u0000name' });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'name' });
      const list = await suite.tenant.http.get('/api/v1/agents?search=Bad');
      expect(list.body.data.items).toEqual([]);
    });

    it('in a nested value or key names the dotted path', async () => {
      const contact = await createContact(suite.tenant, {});
      const nested = await suite.tenant.http
        .put(`/api/v1/contacts/${contact.uuid}`)
        .send({ custom_fields: { note: 'a\u0000b' } });
      expect(nested.status).toBe(422);
      expect(nested.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'custom_fields.note' });
      const key = await suite.tenant.http
        .put(`/api/v1/contacts/${contact.uuid}`)
        .send({ custom_fields: { 'no\u0000te': 'x' } });
      expect(key.status).toBe(422);
      expect(key.body.error.code).toBe('INVALID_FORMAT');
    });

    it('in an agent collection item is 422, not 500', async () => {
      const a = await createAgent(suite.tenant);
      for (const collection of ['guidelines', 'notes', 'training', 'procedures']) {
        const body = collection === 'procedures' ? { name: '\u0000' } : { content: '\u0000' };
        const res = await suite.tenant.http.post(`/api/v1/agents/${a.agent_uuid}/${collection}`).send(body);
        expect(res.status).toBe(422);
      }
    });

    it('in a query value is 422 naming the parameter', async () => {
      const res = await suite.tenant.http.get('/api/v1/agents?search=a%00b');
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'search' });
    });

    it('in an unknown key, which is dropped anyway, is ignored', async () => {
      const body = await suite.tenant.http.post('/api/v1/agents').send({ name: 'Fine', extra: 'a\u0000b' });
      expect(body.status).toBe(201);
      const query = await suite.tenant.http.get('/api/v1/agents?unknown=a%00b');
      expect(query.status).toBe(200);
    });

    it('the token and rate checks still come first', async () => {
      const res = await suite.app
        .http(suite.tenant.host, 'cap_invalid')
        .post('/api/v1/agents')
        .send({ name: '\u0000' });
      expect(res.status).toBe(401);
    });
  });

  describe('page numbers', () => {
    it.each([
      '/api/v1/agents',
      '/api/v1/contacts/tags',
      '/api/v1/schedules',
      '/api/v1/data',
      '/api/v1/phone-numbers',
    ])('%s: a page too large to address is 422 INVALID_FORMAT on page', async (path) => {
      const res = await suite.tenant.http.get(`${path}?page=99999999999999999999`);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'page' });
    });

    it('the largest page answers an empty list', async () => {
      const res = await suite.tenant.http.get('/api/v1/contacts/tags?page=1000000000&per_page=100');
      expect(res.status).toBe(200);
      expect(res.body.data.items).toEqual([]);
      expect(res.body.data.pagination).toMatchObject({ page: 1000000000, per_page: 100 });
    });
  });

  describe('null order and priority on create', () => {
    it('a routing rule with priority null goes last, like one without', async () => {
      const a = await createAgent(suite.tenant);
      const base = `/api/v1/agents/${a.agent_uuid}/routing-rules`;
      await suite.tenant.http.post(base).send({ trigger_keyword: 'one', priority: 5 });
      const res = await suite.tenant.http.post(base).send({ trigger_keyword: 'two', priority: null });
      expect(res.status).toBe(201);
      expect(res.body.data.routing_rules.map((r: any) => [r.trigger_keyword, r.priority])).toEqual([
        ['one', 5],
        ['two', 6],
      ]);
      const put = await suite.tenant.http
        .put(base)
        .send({ routing_rules: [{ trigger_keyword: 'x', priority: null }] });
      expect(put.status).toBe(200);
      expect(put.body.data.routing_rules[0].priority).toBe(1);
    });

    it.each(['guidelines', 'notes'])('a %s item with order null goes last', async (collection) => {
      const a = await createAgent(suite.tenant);
      const base = `/api/v1/agents/${a.agent_uuid}/${collection}`;
      await suite.tenant.http.post(base).send({ content: 'first', order: 3 });
      const res = await suite.tenant.http.post(base).send({ content: 'second', order: null });
      expect(res.status).toBe(201);
      expect(res.body.data[collection].map((g: any) => g.order)).toEqual([3, 4]);
    });

    it('PATCH with priority null is still refused', async () => {
      const a = await createAgent(suite.tenant);
      const created = await suite.tenant.http
        .post(`/api/v1/agents/${a.agent_uuid}/routing-rules`)
        .send({ trigger_keyword: 'one' });
      const rule = created.body.data.routing_rules[0];
      const res = await suite.tenant.http
        .patch(`/api/v1/agents/${a.agent_uuid}/routing-rules/${rule.uuid}`)
        .send({ priority: null });
      expect(res.status).toBe(422);
      expect(res.body.error.field).toBe('priority');
    });
  });

  describe('arrays where objects are expected', () => {
    it.each([
      ['guidelines', 'guidelines'],
      ['notes', 'notes'],
      ['training', 'training'],
      ['procedures', 'procedures'],
      ['intents', 'intents'],
      ['webhooks', 'webhooks'],
      ['routing-rules', 'routing_rules'],
      ['guard-rules', 'guard_rules'],
    ])('PUT %s with an array item is 422 INVALID_FORMAT', async (path, key) => {
      const a = await createAgent(suite.tenant);
      const res = await suite.tenant.http.put(`/api/v1/agents/${a.agent_uuid}/${path}`).send({ [key]: [[]] });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: `${key}.0` });
    });

    it('procedure steps, contact batches, table columns and schedule questions refuse array items', async () => {
      const a = await createAgent(suite.tenant);
      const steps = await suite.tenant.http
        .post(`/api/v1/agents/${a.agent_uuid}/procedures`)
        .send({ name: 'Refund', steps: [[]] });
      expect(steps.status).toBe(422);
      expect(steps.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'steps.0' });
      const contacts = await suite.tenant.http.post('/api/v1/contacts').send({ contacts: [[]] });
      expect(contacts.status).toBe(422);
      expect(contacts.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'contacts.0' });
      const table = await suite.tenant.http.post('/api/v1/data/tables').send({ name: 'T', columns: [[]] });
      expect(table.status).toBe(422);
      expect(table.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'columns.0' });
      const schedule = await suite.tenant.http
        .post('/api/v1/schedules')
        .send({ name: 'S', timezone: 'Europe/Paris', custom_questions: [[]] });
      expect(schedule.status).toBe(422);
      expect(schedule.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'custom_questions.0' });
    });
  });

  describe('null for a key with a default, on create', () => {
    it('procedures, intents and webhooks take their defaults', async () => {
      const a = await createAgent(suite.tenant);
      const base = `/api/v1/agents/${a.agent_uuid}`;
      const proc = await suite.tenant.http.post(`${base}/procedures`).send({ name: 'Refund', steps: null });
      expect(proc.status).toBe(201);
      expect(proc.body.data.procedures[0].steps).toEqual([]);
      const intent = await suite.tenant.http
        .post(`${base}/intents`)
        .send({ name: 'Order status', key: null, parameters: null });
      expect(intent.status).toBe(201);
      expect(intent.body.data.intents[0]).toMatchObject({ key: 'order_status', parameters: [] });
      const hook = await suite.tenant.http
        .post(`${base}/webhooks`)
        .send({ url: 'https://hooks.example.com/x', events: ['conversation_status'], is_active: null });
      expect(hook.status).toBe(201);
      expect(hook.body.data.webhooks[0].is_active).toBe(true);
      const put = await suite.tenant.http
        .put(`${base}/guard-rules`)
        .send({ guard_rules: [{ is_active: null }] });
      expect(put.status).toBe(200);
      expect(put.body.data.guard_rules[0].is_active).toBe(true);
    });

    it('a pipeline stage with order null goes last', async () => {
      await suite.tenant.http.post('/api/v1/contacts/pipeline/stages').send({ name: 'First', order: 7 });
      const res = await suite.tenant.http
        .post('/api/v1/contacts/pipeline/stages')
        .send({ name: 'Next', order: null });
      expect(res.status).toBe(201);
      expect(res.body.data.order).toBe(8);
    });
  });

  describe('routes with the short error body', () => {
    it('answer refusals made before the handler (NUL, reused Idempotency-Key) with the short body too', async () => {
      const nul = await suite.tenant.http
        .post('/api/v1/data/import/copypaste')
        .send({ name: 'Paste', data: 'a\u0000b' });
      expect(nul.status).toBe(422);
      expect(nul.body).toEqual({ success: false, message: expect.stringContaining('data'), data: [] });
      const key = `paste-${Date.now()}`;
      const first = await suite.tenant.http
        .post('/api/v1/data/import/copypaste')
        .set('Idempotency-Key', key)
        .send({ name: 'Paste', data: 'one' });
      expect(first.status).toBe(201);
      const reused = await suite.tenant.http
        .post('/api/v1/data/import/copypaste')
        .set('Idempotency-Key', key)
        .send({ name: 'Paste', data: 'two' });
      expect(reused.status).toBe(422);
      expect(reused.body).toEqual({ success: false, message: expect.any(String), data: [] });
    });

    it('other routes keep the general body for the same refusals', async () => {
      const res = await suite.tenant.http.post('/api/v1/agents').send({ name: 'a\u0000b' });
      expect(res.body).toMatchObject({ success: false, error: { code: 'INVALID_FORMAT', field: 'name' } });
    });
  });
});
