import { EvaluationSettingsService } from '@/modules/agents/settings/evaluation-settings.service';
import { createTenant, TestTenant } from '../factories/workspace.factory';
import { createAgent } from '../factories/agent.factory';
import { useTestApp } from '../setup/suite';

const FACTORY_FEATURES = {
  success_evaluation_prompt: { enabled: true, description: expect.any(String), prompt: '', type: 'boolean' },
  summary_prompt: { enabled: true, description: expect.any(String), type: 'text' },
};

describe('Evaluation settings', () => {
  const suite = useTestApp();

  describe('evaluation', () => {
    let tenant: TestTenant;
    beforeAll(async () => {
      tenant = await createTenant(suite.app);
    });

    it('the default starts at the factory values of the contract', async () => {
      const res = await tenant.http.get('/api/v1/evaluate/default');
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        source: 'default',
        version: 0,
        is_active: true,
        report_language: 'en',
        sessionization: { timeout_minutes: 30 },
        text: FACTORY_FEATURES,
        voice: FACTORY_FEATURES,
      });
    });

    it('inherit, assign, merge into the override, revert: source and a growing version', async () => {
      const a = await createAgent(tenant);
      const url = `/api/v1/agents/${a.agent_uuid}/evaluate`;
      const v0 = (await tenant.http.get(url)).body.data;
      expect(v0).toMatchObject({ source: 'default', report_language: 'en' });

      const def = await tenant.http
        .put('/api/v1/evaluate/default')
        .send({ report_language: 'fr', sessionization: { timeout_minutes: 15 } });
      expect(def.body.data).toMatchObject({
        source: 'default',
        report_language: 'fr',
        sessionization: { timeout_minutes: 15 },
      });
      const v1 = (await tenant.http.get(url)).body.data;
      expect(v1).toMatchObject({ source: 'default', report_language: 'fr' });
      expect(v1.version).toBeGreaterThan(v0.version);

      const assigned = await tenant.http.post(`${url}/assign`);
      expect(assigned.status).toBe(200);
      expect(assigned.body.data).toMatchObject({
        source: 'agent',
        report_language: 'fr',
        sessionization: { timeout_minutes: 15 },
      });
      expect(assigned.body.data.version).toBeGreaterThan(v1.version);

      // The default changing no longer moves the agent.
      await tenant.http.put('/api/v1/evaluate/default').send({ report_language: 'de' });
      const still = (await tenant.http.get(url)).body.data;
      expect(still).toMatchObject({
        source: 'agent',
        report_language: 'fr',
        version: assigned.body.data.version,
      });

      const merged = await tenant.http
        .put(url)
        .send({ voice: { success_evaluation_prompt: { prompt: 'Was a demo booked?' } } });
      expect(merged.status).toBe(200);
      expect(merged.body.data.voice.success_evaluation_prompt).toMatchObject({
        enabled: true,
        type: 'boolean',
        prompt: 'Was a demo booked?',
      });
      expect(merged.body.data.text).toEqual(FACTORY_FEATURES);
      expect(merged.body.data.version).toBeGreaterThan(still.version);

      const reverted = await tenant.http.delete(url);
      expect(reverted.status).toBe(200);
      expect(reverted.body.data).toMatchObject({ source: 'default', report_language: 'de' });
      expect(reverted.body.data.version).toBeGreaterThan(merged.body.data.version);

      // The conversations module reads the same effective settings.
      const effective = await suite.app
        .get<EvaluationSettingsService>(EvaluationSettingsService)
        .effectiveFor(tenant.workspaceId, a.agent_uuid);
      expect(effective).toEqual(reverted.body.data);
    });

    it('PUT on an agent without an override creates it from the default first', async () => {
      const a = await createAgent(tenant);
      const res = await tenant.http.put(`/api/v1/agents/${a.agent_uuid}/evaluate`).send({ is_active: false });
      expect(res.body.data).toMatchObject({ source: 'agent', is_active: false, report_language: 'de' });
    });

    it.each([
      [{ is_active: 'no' }, 'INVALID_FORMAT', 'is_active'],
      [{ sessionization: { timeout_minutes: 0 } }, 'INVALID_FORMAT', 'sessionization.timeout_minutes'],
      [{ sessionization: { timeout_minutes: 'ten' } }, 'INVALID_FORMAT', 'sessionization.timeout_minutes'],
      [{ report_language: 5 }, 'INVALID_FORMAT', 'report_language'],
      [{ text: { sentiment: { type: 'mood' } } }, 'INVALID_FORMAT', 'text.sentiment.type'],
      [{ voice: { sentiment: { type: 'label' } } }, 'VALIDATION_ERROR', 'voice.sentiment.labels'],
      [{ text: [] }, 'INVALID_FORMAT', 'text'],
    ])('rejects %j with %s on %s (default and agent)', async (body, code, field) => {
      const a = await createAgent(tenant);
      for (const url of ['/api/v1/evaluate/default', `/api/v1/agents/${a.agent_uuid}/evaluate`]) {
        const res = await tenant.http.put(url).send(body);
        expect(res.status).toBe(422);
        expect(res.body.error).toMatchObject({ code, field });
      }
      expect((await tenant.http.get(`/api/v1/agents/${a.agent_uuid}/evaluate`)).body.data.source).toBe(
        'default',
      );
    });

    it("another workspace's token gets 404 on the agent's settings and cannot touch its override", async () => {
      const a = await createAgent(tenant);
      await tenant.http.post(`/api/v1/agents/${a.agent_uuid}/evaluate/assign`).expect(200);
      const before = (await tenant.http.get(`/api/v1/agents/${a.agent_uuid}/evaluate`)).body.data;
      const intruder = await createTenant(suite.app);
      const url = `/api/v1/agents/${a.agent_uuid}/evaluate`;
      for (const res of [
        await intruder.http.get(url),
        await intruder.http.put(url).send({ is_active: false }),
        await intruder.http.post(`${url}/assign`),
        await intruder.http.delete(url),
      ])
        expect({ status: res.status, code: res.body.error?.code }).toEqual({
          status: 404,
          code: 'RESOURCE_NOT_FOUND',
        });
      expect((await tenant.http.get(url)).body.data).toEqual(before);
    });
  });
});
