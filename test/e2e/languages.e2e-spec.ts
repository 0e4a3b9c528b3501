import { createAgent } from '../factories/agent.factory';
import { createTenant } from '../factories/workspace.factory';
import { SttServer } from '../support/stt-server';
import { useTestApp } from '../setup/suite';

describe('languages (§15.5)', () => {
  const suite = useTestApp({
    servers: { stt: () => SttServer.start() },
    env: ({ stt }) => ({ STT_BASE_URL: stt.url, LLM_BASE_URL: stt.url }),
    tenants: ['t'],
  });
  const bare = useTestApp({ env: { STT_BASE_URL: '' } });

  it('answers the fixed list, not paginated, with names and whether STT and TTS are configured', async () => {
    const res = await suite.t.http.get('/api/v1/languages').expect(200);
    expect(Array.isArray(res.body.data)).toBe(true);
    expect(res.body.data).toHaveLength(100);
    expect(res.body.data).toContainEqual({
      code: 'de',
      name: 'German',
      native_name: 'Deutsch',
      stt: true,
      tts: true,
    });
    expect(res.body.data.find((l: { code: string }) => l.code === 'yue')).toMatchObject({
      name: 'Cantonese',
    });
    const other = await createTenant(bare.app);
    const off = await other.http.get('/api/v1/languages').expect(200);
    expect(off.body.data[0]).toMatchObject({ code: 'en', stt: false, tts: false });
  });

  it("checks an agent's language and the report_language against the list", async () => {
    expect((await createAgent(suite.t, { language: 'pt-BR' })).language).toBe('pt-BR');
    const bad = await suite.t.http
      .post('/api/v1/agents')
      .send({ name: 'x', language: 'klingon' })
      .expect(422);
    expect(bad.body.error.field).toBe('language');
    const unknown = await suite.t.http.post('/api/v1/agents').send({ name: 'x', language: 'xx' }).expect(422);
    expect(unknown.body.error.field).toBe('language');
    await suite.t.http.put('/api/v1/evaluate/default').send({ report_language: 'fr' }).expect(200);
    const report = await suite.t.http
      .put('/api/v1/evaluate/default')
      .send({ report_language: 'qq' })
      .expect(422);
    expect(report.body.error).toMatchObject({ field: 'report_language', code: 'VALIDATION_ERROR' });
  });
});
