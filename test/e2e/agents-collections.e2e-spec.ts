import { createAgent } from '../factories/agent.factory';
import { MISSING } from '../support/ids';
import { useTestApp } from '../setup/suite';

describe('Agents: knowledge collections (guidelines, notes, training, procedures, intents)', () => {
  const suite = useTestApp({ tenants: ['tenant'] });

  const base = (a: any) => `/api/v1/agents/${a.agent_uuid}`;

  describe.each(['guidelines', 'notes'])('%s', (collection) => {
    it('POST adds one last (max + 1) and answers the whole agent with 201', async () => {
      const a = await createAgent(suite.tenant);
      const first = await suite.tenant.http.post(`${base(a)}/${collection}`).send({ content: 'Be kind' });
      expect(first.status).toBe(201);
      expect(first.body.data.agent_uuid).toBe(a.agent_uuid);
      expect(first.body.data[collection]).toEqual([
        { uuid: expect.any(String), content: 'Be kind', order: 1 },
      ]);
      await suite.tenant.http.post(`${base(a)}/${collection}`).send({ content: 'At ten', order: 10 });
      const third = await suite.tenant.http.post(`${base(a)}/${collection}`).send({ content: 'Last' });
      expect(third.body.data[collection].map((g: any) => [g.content, g.order])).toEqual([
        ['Be kind', 1],
        ['At ten', 10],
        ['Last', 11],
      ]);
      // The other collection is untouched.
      const other = collection === 'notes' ? 'guidelines' : 'notes';
      expect(third.body.data[other]).toEqual([]);
    });

    it('lists by order then insertion; PATCH changes the keys sent; DELETE keeps the others', async () => {
      const a = await createAgent(suite.tenant);
      const put = await suite.tenant.http.put(`${base(a)}/${collection}`).send({
        [collection]: [
          { content: 'B', order: 2 },
          { content: 'A1', order: 1 },
          { content: 'A2', order: 1 },
          { content: 'C' },
        ],
      });
      expect(put.status).toBe(200);
      const items = put.body.data[collection];
      expect(items.map((g: any) => [g.content, g.order])).toEqual([
        ['A1', 1],
        ['A2', 1],
        ['B', 2],
        ['C', 3],
      ]);
      const patched = await suite.tenant.http
        .patch(`${base(a)}/${collection}/${items[2].uuid}`)
        .send({ content: 'B!' });
      expect(patched.status).toBe(200);
      expect(patched.body.data[collection][2]).toEqual({ uuid: items[2].uuid, content: 'B!', order: 2 });
      const del = await suite.tenant.http.delete(`${base(a)}/${collection}/${items[0].uuid}`);
      expect(del.status).toBe(200);
      expect(del.body.data[collection].map((g: any) => g.content)).toEqual(['A2', 'B!', 'C']);
      const replaced = await suite.tenant.http.put(`${base(a)}/${collection}`).send({ [collection]: [] });
      expect(replaced.body.data[collection]).toEqual([]);
    });

    it.each([
      [{}, 'VALIDATION_ERROR', 'content'],
      [{ content: '' }, 'VALIDATION_ERROR', 'content'],
      [{ content: 3 }, 'INVALID_FORMAT', 'content'],
      [{ content: 'x', order: 1.5 }, 'INVALID_FORMAT', 'order'],
      [{ content: 'x', order: 'first' }, 'INVALID_FORMAT', 'order'],
    ])('POST rejects %j with %s on %s', async (body, code, field) => {
      const a = await createAgent(suite.tenant);
      const res = await suite.tenant.http.post(`${base(a)}/${collection}`).send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    });

    it('PUT names the failing item; nothing is written when one item is bad', async () => {
      const a = await createAgent(suite.tenant);
      await suite.tenant.http.post(`${base(a)}/${collection}`).send({ content: 'keep me' });
      const res = await suite.tenant.http
        .put(`${base(a)}/${collection}`)
        .send({ [collection]: [{ content: 'ok' }, { content: '' }] });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: `${collection}.1.content` });
      const missing = await suite.tenant.http.put(`${base(a)}/${collection}`).send({});
      expect(missing.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: collection });
      const after = await suite.tenant.http.get(base(a));
      expect(after.body.data[collection].map((g: any) => g.content)).toEqual(['keep me']);
    });

    it('PATCH and DELETE of an unknown or malformed item: 404 / 422 itemUuid', async () => {
      const a = await createAgent(suite.tenant);
      expect(
        (await suite.tenant.http.patch(`${base(a)}/${collection}/${MISSING}`).send({ content: 'x' })).status,
      ).toBe(404);
      expect((await suite.tenant.http.delete(`${base(a)}/${collection}/${MISSING}`)).status).toBe(404);
      const bad = await suite.tenant.http.delete(`${base(a)}/${collection}/nope`);
      expect(bad.status).toBe(422);
      expect(bad.body.error).toMatchObject({ code: 'INVALID_UUID', field: 'itemUuid' });
      const nul = await suite.tenant.http.post(`${base(a)}/${collection}`).send({ content: 'x' });
      const id = nul.body.data[collection][0].uuid;
      const res = await suite.tenant.http.patch(`${base(a)}/${collection}/${id}`).send({ content: null });
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'content' });
    });
  });

  describe('training', () => {
    it('POST, PUT, PATCH, DELETE', async () => {
      const a = await createAgent(suite.tenant);
      const post = await suite.tenant.http
        .post(`${base(a)}/training`)
        .send({ content: 'How much?', intent: 'pricing', response: '49 EUR' });
      expect(post.status).toBe(201);
      expect(post.body.data.training).toEqual([
        { uuid: expect.any(String), content: 'How much?', intent: 'pricing', response: '49 EUR' },
      ]);
      const put = await suite.tenant.http.put(`${base(a)}/training`).send({
        training: [{ content: 'one' }, { content: 'two', intent: 'x' }],
      });
      expect(put.body.data.training.map((t: any) => [t.content, t.intent, t.response])).toEqual([
        ['one', null, null],
        ['two', 'x', null],
      ]);
      const id = put.body.data.training[1].uuid;
      const patch = await suite.tenant.http.patch(`${base(a)}/training/${id}`).send({ response: 'answer' });
      expect(patch.body.data.training[1]).toEqual({
        uuid: id,
        content: 'two',
        intent: 'x',
        response: 'answer',
      });
      const del = await suite.tenant.http.delete(`${base(a)}/training/${id}`);
      expect(del.body.data.training.map((t: any) => t.content)).toEqual(['one']);
    });

    it.each([
      [{}, 'VALIDATION_ERROR', 'content'],
      [{ content: 'x', intent: 5 }, 'INVALID_FORMAT', 'intent'],
      [{ content: 'x', response: [] }, 'INVALID_FORMAT', 'response'],
    ])('rejects %j with %s on %s', async (body, code, field) => {
      const a = await createAgent(suite.tenant);
      const res = await suite.tenant.http.post(`${base(a)}/training`).send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    });
  });

  describe('intents', () => {
    it('generates a unique key from the name and stores every field', async () => {
      const a = await createAgent(suite.tenant);
      const first = await suite.tenant.http.post(`${base(a)}/intents`).send({
        name: 'Check order status!',
        description: 'Where is my order',
        recommendation_actions: 'Offer tracking',
        confidence_threshold: 0.7,
        is_system: true,
        intent_llm_handle_by_response: true,
        webhook: { url: 'https://hooks.example.com/orders', auth_token: 'tok_1' },
        parameters: [{ key: 'order_number', type: 'string', required: true }, { key: 'email' }],
      });
      expect(first.status).toBe(201);
      expect(first.body.data.intents[0]).toEqual({
        intent_uuid: expect.any(String),
        key: 'check_order_status',
        name: 'Check order status!',
        description: 'Where is my order',
        recommendation_actions: 'Offer tracking',
        confidence_threshold: 0.7,
        is_system: true,
        intent_llm_handle_by_response: true,
        webhook: { url: 'https://hooks.example.com/orders', auth_token: 'tok_1' },
        parameters: [
          { key: 'order_number', default: null, type: 'string', required: true },
          { key: 'email', default: null, type: 'string', required: false },
        ],
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      const second = await suite.tenant.http.post(`${base(a)}/intents`).send({ name: 'Check order status' });
      expect(second.body.data.intents[1]).toMatchObject({
        key: 'check_order_status_2',
        confidence_threshold: 0.5,
        is_system: false,
        webhook: null,
        parameters: [],
      });
      const explicit = await suite.tenant.http
        .post(`${base(a)}/intents`)
        .send({ name: 'Other', key: 'custom_key' });
      expect(explicit.body.data.intents[2].key).toBe('custom_key');
    });

    it('answers 409 for an explicit key already used by another intent of the agent', async () => {
      const a = await createAgent(suite.tenant);
      const made = await suite.tenant.http.post(`${base(a)}/intents`).send({ name: 'Refund', key: 'refund' });
      const dup = await suite.tenant.http
        .post(`${base(a)}/intents`)
        .send({ name: 'Refund 2', key: 'refund' });
      expect(dup.status).toBe(409);
      expect(dup.body.error.code).toBe('CONFLICT');
      const other = await suite.tenant.http.post(`${base(a)}/intents`).send({ name: 'Sales', key: 'sales' });
      const id = other.body.data.intents[1].intent_uuid;
      expect((await suite.tenant.http.patch(`${base(a)}/intents/${id}`).send({ key: 'refund' })).status).toBe(
        409,
      );
      // Keeping its own key is fine, and another agent may use the same key.
      expect(
        (
          await suite.tenant.http
            .patch(`${base(a)}/intents/${made.body.data.intents[0].intent_uuid}`)
            .send({ key: 'refund' })
        ).status,
      ).toBe(200);
      const b = await createAgent(suite.tenant);
      expect(
        (await suite.tenant.http.post(`${base(b)}/intents`).send({ name: 'Refund', key: 'refund' })).status,
      ).toBe(201);
      const putDup = await suite.tenant.http.put(`${base(a)}/intents`).send({
        intents: [
          { name: 'A', key: 'k' },
          { name: 'B', key: 'k' },
        ],
      });
      expect(putDup.status).toBe(409);
    });

    it.each([
      [{}, 'VALIDATION_ERROR', 'name'],
      [{ name: 'x', confidence_threshold: 1.5 }, 'INVALID_FORMAT', 'confidence_threshold'],
      [{ name: 'x', confidence_threshold: -0.1 }, 'INVALID_FORMAT', 'confidence_threshold'],
      [{ name: 'x', confidence_threshold: 'high' }, 'INVALID_FORMAT', 'confidence_threshold'],
      [{ name: 'x', key: 'Has Spaces' }, 'INVALID_FORMAT', 'key'],
      [{ name: 'x', is_system: 'no' }, 'INVALID_FORMAT', 'is_system'],
      [{ name: 'x', webhook: { url: 'ftp://x.example.com' } }, 'INVALID_FORMAT', 'webhook.url'],
      [{ name: 'x', webhook: {} }, 'VALIDATION_ERROR', 'webhook.url'],
      [{ name: 'x', parameters: [{ type: 'string' }] }, 'VALIDATION_ERROR', 'parameters.0.key'],
      [{ name: 'x', parameters: [{ key: 'k', type: 'blob' }] }, 'INVALID_FORMAT', 'parameters.0.type'],
      [{ name: 'x', parameters: [{ key: 'k', required: 'yes' }] }, 'INVALID_FORMAT', 'parameters.0.required'],
      [{ name: 'x', parameters: 'k' }, 'INVALID_FORMAT', 'parameters'],
    ])('rejects %j with %s on %s', async (body, code, field) => {
      const a = await createAgent(suite.tenant);
      const res = await suite.tenant.http.post(`${base(a)}/intents`).send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    });
  });

  describe('procedures', () => {
    it('stores steps sorted by order with intent references of the same agent', async () => {
      const a = await createAgent(suite.tenant);
      const withIntent = await suite.tenant.http.post(`${base(a)}/intents`).send({ name: 'Lookup order' });
      const intentId = withIntent.body.data.intents[0].intent_uuid;
      const res = await suite.tenant.http.post(`${base(a)}/procedures`).send({
        name: 'Process a refund',
        description: 'When the customer wants money back',
        steps: [
          { order: 2, description: 'Look up the order', intent_uuid: intentId },
          { order: 1, description: 'Ask for the order number' },
        ],
      });
      expect(res.status).toBe(201);
      expect(res.body.data.procedures).toEqual([
        {
          uuid: expect.any(String),
          name: 'Process a refund',
          description: 'When the customer wants money back',
          steps: [
            { order: 1, description: 'Ask for the order number', intent_uuid: null },
            { order: 2, description: 'Look up the order', intent_uuid: intentId },
          ],
        },
      ]);
      const id = res.body.data.procedures[0].uuid;
      const patched = await suite.tenant.http
        .patch(`${base(a)}/procedures/${id}`)
        .send({ description: null });
      expect(patched.body.data.procedures[0]).toMatchObject({ name: 'Process a refund', description: null });
      expect(patched.body.data.procedures[0].steps).toHaveLength(2);

      // Removing the intent turns its steps into plain conversation steps.
      await suite.tenant.http.delete(`${base(a)}/intents/${intentId}`);
      const after = await suite.tenant.http.get(base(a));
      expect(after.body.data.procedures[0].steps[1]).toEqual({
        order: 2,
        description: 'Look up the order',
        intent_uuid: null,
      });
    });

    it('rejects an intent_uuid that is not an intent of this agent, naming the step', async () => {
      const a = await createAgent(suite.tenant);
      const b = await createAgent(suite.tenant);
      const foreign = await suite.tenant.http.post(`${base(b)}/intents`).send({ name: 'Elsewhere' });
      const foreignId = foreign.body.data.intents[0].intent_uuid;
      const res = await suite.tenant.http
        .post(`${base(a)}/procedures`)
        .send({ name: 'P', steps: [{ order: 1 }, { order: 2, intent_uuid: foreignId }] });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'steps.1.intent_uuid' });
      const put = await suite.tenant.http
        .put(`${base(a)}/procedures`)
        .send({ procedures: [{ name: 'ok' }, { name: 'P', steps: [{ order: 1, intent_uuid: MISSING }] }] });
      expect(put.status).toBe(422);
      expect(put.body.error).toMatchObject({ field: 'procedures.1.steps.0.intent_uuid' });
      expect((await suite.tenant.http.get(base(a))).body.data.procedures).toEqual([]);
    });

    it.each([
      [{}, 'VALIDATION_ERROR', 'name'],
      [{ name: '' }, 'VALIDATION_ERROR', 'name'],
      [{ name: 'P', description: 5 }, 'INVALID_FORMAT', 'description'],
      [{ name: 'P', steps: [{ description: 'x' }] }, 'VALIDATION_ERROR', 'steps.0.order'],
      [{ name: 'P', steps: [{ order: 'one' }] }, 'INVALID_FORMAT', 'steps.0.order'],
      [{ name: 'P', steps: [{ order: 1, intent_uuid: 'nope' }] }, 'INVALID_UUID', 'steps.0.intent_uuid'],
      [{ name: 'P', steps: {} }, 'INVALID_FORMAT', 'steps'],
    ])('rejects %j with %s on %s', async (body, code, field) => {
      const a = await createAgent(suite.tenant);
      const res = await suite.tenant.http.post(`${base(a)}/procedures`).send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, field });
    });

    it('PATCH cannot clear the name', async () => {
      const a = await createAgent(suite.tenant);
      const made = await suite.tenant.http.post(`${base(a)}/procedures`).send({ name: 'P' });
      const res = await suite.tenant.http
        .patch(`${base(a)}/procedures/${made.body.data.procedures[0].uuid}`)
        .send({ name: null });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'name' });
    });
  });

  it('collection writes on an unknown agent are 404', async () => {
    const res = await suite.tenant.http.post(`/api/v1/agents/${MISSING}/notes`).send({ content: 'x' });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('RESOURCE_NOT_FOUND');
  });
});
