import { createAgent } from '../factories/agent.factory';
import { createTenant, TestTenant } from '../factories/workspace.factory';
import { startTestApp, TestApp } from '../setup/test-app';
import { SttServer } from '../support/stt-server';

describe('languages (§15.5)', () => {
  let stt: SttServer;
  let app: TestApp;
  let bare: TestApp;
  let t: TestTenant;

  beforeAll(async () => {
    stt = await SttServer.start();
    app = await startTestApp({ STT_BASE_URL: stt.url, LLM_BASE_URL: stt.url });
    bare = await startTestApp({ STT_BASE_URL: '' });
    t = await createTenant(app);
  });
  afterAll(async () => {
    await app.close();
    await bare.close();
    await stt.close();
  });

  it('answers the fixed list, not paginated, with names and whether STT and TTS are configured', async () => {
    const res = await t.http.get('/api/v1/languages').expect(200);
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
    const other = await createTenant(bare);
    const off = await other.http.get('/api/v1/languages').expect(200);
    expect(off.body.data[0]).toMatchObject({ code: 'en', stt: false, tts: false });
  });

  it("checks an agent's language and the report_language against the list", async () => {
    expect((await createAgent(t, { language: 'pt-BR' })).language).toBe('pt-BR');
    const bad = await t.http.post('/api/v1/agents').send({ name: 'x', language: 'klingon' }).expect(422);
    expect(bad.body.error.field).toBe('language');
    const unknown = await t.http.post('/api/v1/agents').send({ name: 'x', language: 'xx' }).expect(422);
    expect(unknown.body.error.field).toBe('language');
    await t.http.put('/api/v1/evaluate/default').send({ report_language: 'fr' }).expect(200);
    const report = await t.http.put('/api/v1/evaluate/default').send({ report_language: 'qq' }).expect(422);
    expect(report.body.error).toMatchObject({ field: 'report_language', code: 'VALIDATION_ERROR' });
  });
});
