import { createAgent, createPhoneNumber } from '../factories/agent.factory';
import { useTestApp } from '../setup/suite';

/** Another workspace's token with the right uuids gets exactly what a nonexistent uuid gets: 404. */
describe('Agents: another workspace sees nothing', () => {
  const suite = useTestApp({ tenants: ['owner', 'intruder'] });
  let agent: any;
  let intruderNumber: any;

  beforeAll(async () => {
    agent = await createAgent(suite.owner, { name: 'Private', status: 'ready' });
    const a = `/api/v1/agents/${agent.agent_uuid}`;
    await suite.owner.http.post(`${a}/guidelines`).send({ content: 'g' });
    await suite.owner.http.post(`${a}/notes`).send({ content: 'n' });
    await suite.owner.http.post(`${a}/training`).send({ content: 't' });
    await suite.owner.http.post(`${a}/intents`).send({ name: 'i' });
    await suite.owner.http.post(`${a}/procedures`).send({ name: 'p' });
    await suite.owner.http
      .post(`${a}/webhooks`)
      .send({ url: 'https://hooks.example.com', events: ['conversation_status'] });
    await suite.owner.http.post(`${a}/routing-rules`).send({ trigger_keyword: 'r' });
    await suite.owner.http.post(`${a}/guard-rules`).send({ name: 'g' });
    const n = await createPhoneNumber(suite.owner, { capabilities: { whatsapp: true } });
    await suite.owner.http.post(`${a}/phone-numbers`).send({ phone_number_uuid: n.uuid, channels: ['call'] });
    await suite.owner.http.post(`${a}/channels/messenger/bind`).send({ page_id: 'private-page' });
    agent = (await suite.owner.http.get(a)).body.data;
    intruderNumber = await createPhoneNumber(suite.intruder, { capabilities: { whatsapp: true } });
  });

  const routes = (): [string, string, Record<string, unknown>?][] => {
    const a = `/api/v1/agents/${agent.agent_uuid}`;
    const item = (c: string, key = 'uuid') => agent[c][0][key];
    return [
      ['get', a],
      ['patch', a, { name: 'x' }],
      ['delete', a],
      ['post', `${a}/rules/test`, { utterance: 'r', channel: 'phone' }],
      ['post', `${a}/guidelines`, { content: 'x' }],
      ['put', `${a}/guidelines`, { guidelines: [] }],
      ['patch', `${a}/guidelines/${item('guidelines')}`, { content: 'x' }],
      ['delete', `${a}/guidelines/${item('guidelines')}`],
      ['post', `${a}/notes`, { content: 'x' }],
      ['put', `${a}/notes`, { notes: [] }],
      ['patch', `${a}/notes/${item('notes')}`, { content: 'x' }],
      ['delete', `${a}/notes/${item('notes')}`],
      ['post', `${a}/training`, { content: 'x' }],
      ['put', `${a}/training`, { training: [] }],
      ['patch', `${a}/training/${item('training')}`, { content: 'x' }],
      ['delete', `${a}/training/${item('training')}`],
      ['post', `${a}/procedures`, { name: 'x' }],
      ['put', `${a}/procedures`, { procedures: [] }],
      ['patch', `${a}/procedures/${item('procedures')}`, { name: 'x' }],
      ['delete', `${a}/procedures/${item('procedures')}`],
      ['post', `${a}/intents`, { name: 'x' }],
      ['put', `${a}/intents`, { intents: [] }],
      ['patch', `${a}/intents/${item('intents', 'intent_uuid')}`, { name: 'x' }],
      ['delete', `${a}/intents/${item('intents', 'intent_uuid')}`],
      ['post', `${a}/webhooks`, { url: 'https://x.example.com', events: ['conversation_status'] }],
      ['put', `${a}/webhooks`, { webhooks: [] }],
      ['patch', `${a}/webhooks/${item('webhooks', 'webhook_uuid')}`, { is_active: false }],
      ['delete', `${a}/webhooks/${item('webhooks', 'webhook_uuid')}`],
      ['post', `${a}/routing-rules`, { trigger_keyword: 'x' }],
      ['put', `${a}/routing-rules`, { routing_rules: [] }],
      ['patch', `${a}/routing-rules/${item('routing_rules')}`, { priority: 9 }],
      ['delete', `${a}/routing-rules/${item('routing_rules')}`],
      ['post', `${a}/guard-rules`, { name: 'x' }],
      ['put', `${a}/guard-rules`, { guard_rules: [] }],
      ['patch', `${a}/guard-rules/${item('guard_rules')}`, { name: 'x' }],
      ['delete', `${a}/guard-rules/${item('guard_rules')}`],
      ['get', `${a}/channels`],
      ['post', `${a}/phone-numbers`, { phone_number_uuid: intruderNumber.uuid, channels: ['sms'] }],
      ['delete', `${a}/phone-numbers/${item('phone_numbers', 'phone_number_uuid')}`],
      ['post', `${a}/channels/whatsapp/bind`, { phone_number_uuid: intruderNumber.uuid }],
      ['post', `${a}/channels/whatsapp/unbind`],
      ['post', `${a}/channels/messenger/bind`, { page_id: 'intruder-page' }],
      ['post', `${a}/channels/messenger/unbind`],
      ['get', `${a}/evaluate`],
      ['put', `${a}/evaluate`, { is_active: false }],
      ['post', `${a}/evaluate/assign`],
      ['delete', `${a}/evaluate`],
      ['get', `${a}/memorize`],
      ['put', `${a}/memorize`, { is_active: false }],
      ['post', `${a}/memorize/reset`],
    ];
  };

  it('answers 404 RESOURCE_NOT_FOUND on every agent route', async () => {
    const list = routes();
    expect(list.length).toBe(50);
    for (const [method, path, body] of list) {
      const req = suite.intruder.http[method as 'get'](path);
      const res = body ? await req.send(body) : await req;
      expect({ method, path, status: res.status, code: res.body.error?.code }).toEqual({
        method,
        path,
        status: 404,
        code: 'RESOURCE_NOT_FOUND',
      });
    }
  });

  it('left the agent exactly as it was, and settings stayed inherited', async () => {
    const now = await suite.owner.http.get(`/api/v1/agents/${agent.agent_uuid}`);
    expect(now.body.data).toEqual(agent);
    expect((await suite.owner.http.get(`/api/v1/agents/${agent.agent_uuid}/evaluate`)).body.data.source).toBe(
      'default',
    );
    expect((await suite.owner.http.get(`/api/v1/agents/${agent.agent_uuid}/memorize`)).body.data.source).toBe(
      'default',
    );
  });

  it('lists and the flow catalog do not show the other tenant agents', async () => {
    expect((await suite.intruder.http.get('/api/v1/agents')).body.data.items).toEqual([]);
    expect((await suite.intruder.http.get(`/api/v1/agents?search=Private`)).body.data.pagination.total).toBe(
      0,
    );
    const catalog = await suite.intruder.http.get('/api/v1/flow/agents');
    expect(catalog.status).toBe(404);
    expect(catalog.body).toEqual({ success: false, message: 'No ready agent found', data: [] });
  });

  it('default settings are per workspace', async () => {
    await suite.owner.http.put('/api/v1/evaluate/default').send({ report_language: 'es' });
    await suite.owner.http.put('/api/v1/memorize/default').send({ is_active: false });
    expect((await suite.intruder.http.get('/api/v1/evaluate/default')).body.data.report_language).toBe('en');
    expect((await suite.intruder.http.get('/api/v1/memorize/default')).body.data.is_active).toBe(true);
  });
});
