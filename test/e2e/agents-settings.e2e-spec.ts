import { createTenant, TestTenant } from '../factories/workspace.factory';
import { createAgent } from '../factories/agent.factory';
import { useTestApp } from '../setup/suite';

describe('Agents: memorize settings', () => {
  const suite = useTestApp();

  describe('memorize', () => {
    let tenant: TestTenant;
    beforeAll(async () => {
      tenant = await createTenant(suite.app);
    });

    it('first PUT creates the override from the workspace default, then applies the changes', async () => {
      const def = await tenant.http.put('/api/v1/memorize/default').send({
        contact_field_settings: { fields: ['email'] },
        conversation_settings: { remember_topics: 3 },
      });
      expect(def.body.data).toMatchObject({
        source: 'default',
        contact_field_settings: { fields: ['email'] },
        is_active: true,
      });
      const a = await createAgent(tenant);
      const url = `/api/v1/agents/${a.agent_uuid}/memorize`;
      expect((await tenant.http.get(url)).body.data).toMatchObject({
        source: 'default',
        conversation_settings: { remember_topics: 3 },
      });
      const put = await tenant.http
        .put(url)
        .send({ conversation_settings: { summarize: true }, is_active: false });
      expect(put.status).toBe(200);
      expect(put.body.data).toEqual({
        source: 'agent',
        contact_field_settings: { fields: ['email'] },
        conversation_settings: { remember_topics: 3, summarize: true },
        channel_settings: {},
        is_active: false,
        updated_at: expect.any(String),
      });
      // The default is untouched.
      expect((await tenant.http.get('/api/v1/memorize/default')).body.data.conversation_settings).toEqual({
        remember_topics: 3,
      });
    });

    it('reset without an override creates it at factory defaults; with one, resets it; the default is untouched', async () => {
      const a = await createAgent(tenant);
      const url = `/api/v1/agents/${a.agent_uuid}/memorize`;
      const reset = await tenant.http.post(`${url}/reset`);
      expect(reset.status).toBe(200);
      expect(reset.body.data).toMatchObject({
        source: 'agent',
        contact_field_settings: {},
        conversation_settings: {},
        channel_settings: {},
        is_active: true,
      });
      await tenant.http.put(url).send({ channel_settings: { sms: false } });
      const again = await tenant.http.post(`${url}/reset`);
      expect(again.body.data).toMatchObject({ source: 'agent', channel_settings: {} });
      expect((await tenant.http.get('/api/v1/memorize/default')).body.data.contact_field_settings).toEqual({
        fields: ['email'],
      });
    });

    it.each([
      [{ contact_field_settings: 'all' }, 'contact_field_settings'],
      [{ conversation_settings: [] }, 'conversation_settings'],
      [{ channel_settings: 1 }, 'channel_settings'],
      [{ is_active: 'yes' }, 'is_active'],
    ])('rejects %j with INVALID_FORMAT on %s', async (body, field) => {
      const a = await createAgent(tenant);
      for (const url of ['/api/v1/memorize/default', `/api/v1/agents/${a.agent_uuid}/memorize`]) {
        const res = await tenant.http.put(url).send(body);
        expect(res.status).toBe(422);
        expect(res.body.error).toMatchObject({ code: 'INVALID_FORMAT', field });
      }
    });
  });
});
