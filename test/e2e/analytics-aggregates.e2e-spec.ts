import { DataSource } from 'typeorm';
import { seedConversation, seedEvaluation, seedMessages, seedSession } from '../factories/analytics.factory';
import { insertAgent } from '../factories/agent.factory';
import { createTenant, TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';

const t = (iso: string) => new Date(iso);
const plus = (iso: string, seconds: number) => new Date(Date.parse(iso) + seconds * 1000);

describe('analytics: aggregates', () => {
  const suite = useTestApp();
  let db: DataSource;
  let a: TestTenant;
  let b: TestTenant;
  let agentId: string;
  const RANGE = 'from=2026-03-01&to=2026-03-05';

  beforeAll(async () => {
    db = suite.app.get<DataSource>(DataSource);
    [a, b] = await Promise.all([createTenant(suite.app), createTenant(suite.app)]);
    const ws = a.workspaceId;
    agentId = await insertAgent(db, ws);
    const wa = await seedConversation(db, ws, {
      channel: 'whatsapp',
      agentId,
      createdAt: t('2026-03-02T09:00:00Z'),
    });
    const sms = await seedConversation(db, ws, { channel: 'sms', createdAt: t('2026-03-03T07:00:00Z') });
    const ph1 = await seedConversation(db, ws, {
      channel: 'phone',
      agentId,
      createdAt: t('2026-03-02T10:00:00Z'),
      closedAt: plus('2026-03-02T10:00:00Z', 120),
    });
    const ph2 = await seedConversation(db, ws, {
      channel: 'phone',
      createdAt: t('2026-03-03T09:00:00Z'),
      closedAt: plus('2026-03-03T09:00:00Z', 60),
    });
    const wc = await seedConversation(db, ws, {
      channel: 'whatsapp_call',
      createdAt: t('2026-03-03T15:00:00Z'),
    });
    await seedMessages(db, ws, [
      { conversationId: ph1, channel: 'phone', direction: 'inbound', createdAt: t('2026-03-02T10:00:01Z') },
      { conversationId: ph1, channel: 'phone', direction: 'outbound', createdAt: t('2026-03-02T10:00:02Z') },
      { conversationId: ph2, channel: 'phone', direction: 'outbound', createdAt: t('2026-03-03T09:00:01Z') },
      {
        conversationId: wc,
        channel: 'whatsapp_call',
        direction: 'inbound',
        createdAt: t('2026-03-03T15:00:01Z'),
      },
      { conversationId: wa, channel: 'whatsapp', direction: 'inbound', createdAt: t('2026-03-02T09:00:01Z') },
    ]);

    const s1 = await seedSession(db, ws, {
      conversationId: wa,
      channel: 'whatsapp',
      agentId,
      startedAt: t('2026-03-02T10:00:00Z'),
      endedAt: plus('2026-03-02T10:00:00Z', 300),
      endReason: 'timeout',
      messageCount: 4,
    });
    // 23:30 UTC is already the 3rd in Paris.
    const s2 = await seedSession(db, ws, {
      conversationId: wa,
      channel: 'whatsapp',
      agentId,
      startedAt: t('2026-03-02T23:30:00Z'),
      endedAt: plus('2026-03-02T23:30:00Z', 100),
      endReason: 'closed',
      messageCount: 2,
    });
    const s3 = await seedSession(db, ws, {
      conversationId: sms,
      channel: 'sms',
      startedAt: t('2026-03-03T08:00:00Z'),
      messageCount: 3,
    });
    const s4 = await seedSession(db, ws, {
      conversationId: ph1,
      channel: 'phone',
      agentId,
      startedAt: t('2026-03-03T12:00:00Z'),
      endedAt: plus('2026-03-03T12:00:00Z', 60),
      endReason: 'call_ended',
      messageCount: 6,
    });
    await seedSession(db, ws, {
      conversationId: wa,
      channel: 'whatsapp',
      startedAt: t('2026-03-10T12:00:00Z'),
      messageCount: 9,
    });

    const ev = (
      session: string,
      conversationId: string,
      channel: 'whatsapp' | 'sms' | 'phone',
      createdAt: string,
      rest: Partial<Parameters<typeof seedEvaluation>[2]> &
        Pick<Parameters<typeof seedEvaluation>[2], 'feature' | 'type'>,
    ) =>
      seedEvaluation(db, ws, {
        sessionId: session,
        conversationId,
        channel,
        createdAt: t(createdAt),
        ...rest,
      });
    await ev(s1, wa, 'whatsapp', '2026-03-02T11:00:00Z', {
      feature: 'success_evaluation_prompt',
      type: 'boolean',
      value: true,
    });
    await ev(s1, wa, 'whatsapp', '2026-03-02T11:00:00Z', {
      feature: 'csat',
      type: 'score',
      value: 8,
      score: 8,
    });
    await ev(s1, wa, 'whatsapp', '2026-03-02T11:00:00Z', {
      feature: 'topic',
      type: 'label',
      value: 'billing',
      label: 'billing',
    });
    await ev(s1, wa, 'whatsapp', '2026-03-02T11:00:00Z', {
      feature: 'summary_prompt',
      type: 'text',
      value: 'Asked about a bill',
    });
    await ev(s2, wa, 'whatsapp', '2026-03-03T00:10:00Z', {
      feature: 'success_evaluation_prompt',
      type: 'boolean',
      value: false,
    });
    await ev(s2, wa, 'whatsapp', '2026-03-03T00:10:00Z', {
      feature: 'csat',
      type: 'score',
      value: 6,
      score: 6,
    });
    await ev(s2, wa, 'whatsapp', '2026-03-03T00:10:00Z', {
      feature: 'topic',
      type: 'label',
      value: 'billing',
      label: 'billing',
    });
    await ev(s4, ph1, 'phone', '2026-03-03T13:00:00Z', {
      feature: 'success_evaluation_prompt',
      type: 'boolean',
      value: true,
    });
    await ev(s4, ph1, 'phone', '2026-03-03T13:00:00Z', { feature: 'csat', type: 'score', status: 'failed' });
    await ev(s4, ph1, 'phone', '2026-03-03T13:00:00Z', {
      feature: 'topic',
      type: 'label',
      value: 'shipping',
      label: 'shipping',
    });
    await ev(s3, sms, 'sms', '2026-03-03T09:00:00Z', {
      feature: 'success_evaluation_prompt',
      type: 'boolean',
      status: 'skipped',
    });
  });

  describe('GET /analytics/sessions', () => {
    it('counts sessions, endings, mean duration and messages per session: totals, channels, days', async () => {
      const res = await a.http.get(`/api/v1/analytics/sessions?${RANGE}`).expect(200);
      expect(res.body).toMatchObject({ success: true, message: 'OK' });
      const data = res.body.data;
      expect(data.range).toEqual({
        from: '2026-03-01T00:00:00.000Z',
        to: '2026-03-05T00:00:00.000Z',
        channels: null,
        agent_uuid: null,
        timezone: 'UTC',
      });
      expect(data.totals).toEqual({
        count: 4,
        active: 1,
        ended: 3,
        ended_by_reason: { timeout: 1, closed: 1, call_ended: 1 },
        mean_duration_seconds: 153.333,
        messages: 15,
        messages_per_session: 3.75,
      });
      expect(data.by_channel).toEqual([
        {
          channel: 'phone',
          channel_label: 'Phone call',
          count: 1,
          active: 0,
          ended: 1,
          ended_by_reason: { timeout: 0, closed: 0, call_ended: 1 },
          mean_duration_seconds: 60,
          messages: 6,
          messages_per_session: 6,
        },
        {
          channel: 'sms',
          channel_label: 'SMS',
          count: 1,
          active: 1,
          ended: 0,
          ended_by_reason: { timeout: 0, closed: 0, call_ended: 0 },
          mean_duration_seconds: null,
          messages: 3,
          messages_per_session: 3,
        },
        {
          channel: 'whatsapp',
          channel_label: 'WhatsApp',
          count: 2,
          active: 0,
          ended: 2,
          ended_by_reason: { timeout: 1, closed: 1, call_ended: 0 },
          mean_duration_seconds: 200,
          messages: 6,
          messages_per_session: 3,
        },
      ]);
      expect(data.by_day.map((d: { date: string; count: number }) => [d.date, d.count])).toEqual([
        ['2026-03-02', 2],
        ['2026-03-03', 2],
      ]);
    });

    it('buckets days in the given time zone, where bare dates also start', async () => {
      const res = await a.http.get(`/api/v1/analytics/sessions?${RANGE}&timezone=Europe/Paris`).expect(200);
      expect(res.body.data.range).toMatchObject({
        from: '2026-02-28T23:00:00.000Z',
        timezone: 'Europe/Paris',
      });
      expect(res.body.data.by_day.map((d: { date: string; count: number }) => [d.date, d.count])).toEqual([
        ['2026-03-02', 1],
        ['2026-03-03', 3],
      ]);
    });

    it('filters by channels, agent and the half-open range', async () => {
      const get = async (q: string) =>
        (await a.http.get(`/api/v1/analytics/sessions?${q}`).expect(200)).body.data.totals.count;
      expect(await get(`${RANGE}&channel=whatsapp,sms`)).toBe(3);
      expect(await get(`${RANGE}&channel=instagram`)).toBe(0);
      expect(await get(`${RANGE}&agent_uuid=${agentId}`)).toBe(3);
      expect(await get('from=2026-03-02T10:00:00Z&to=2026-03-03T08:00:00Z')).toBe(2);
      expect(await get('from=2026-03-02T10:00:00.001Z&to=2026-03-03T08:00:00.001Z')).toBe(2);
      expect(await get('')).toBe(5);
    });
  });

  describe('GET /analytics/evaluations', () => {
    it('per feature: counts by status, counts of each value or label, mean score, success rate', async () => {
      const res = await a.http.get(`/api/v1/analytics/evaluations?${RANGE}`).expect(200);
      const { totals, by_channel, by_day } = res.body.data;
      expect(totals).toEqual({
        records: 11,
        features: [
          {
            feature: 'csat',
            type: 'score',
            count: 3,
            completed: 2,
            failed: 1,
            skipped: 0,
            values: {},
            mean_score: 7,
            success_rate: null,
          },
          {
            feature: 'success_evaluation_prompt',
            type: 'boolean',
            count: 4,
            completed: 3,
            failed: 0,
            skipped: 1,
            values: { true: 2, false: 1 },
            mean_score: null,
            success_rate: 0.6667,
          },
          {
            feature: 'summary_prompt',
            type: 'text',
            count: 1,
            completed: 1,
            failed: 0,
            skipped: 0,
            values: {},
            mean_score: null,
            success_rate: null,
          },
          {
            feature: 'topic',
            type: 'label',
            count: 3,
            completed: 3,
            failed: 0,
            skipped: 0,
            values: { billing: 2, shipping: 1 },
            mean_score: null,
            success_rate: null,
          },
        ],
      });
      const phone = by_channel.find((c: { channel: string }) => c.channel === 'phone');
      expect(phone).toMatchObject({ channel_label: 'Phone call', records: 3 });
      expect(phone.features.find((f: { feature: string }) => f.feature === 'topic').values).toEqual({
        shipping: 1,
      });
      expect(by_channel.map((c: { channel: string; records: number }) => [c.channel, c.records])).toEqual([
        ['phone', 3],
        ['sms', 1],
        ['whatsapp', 7],
      ]);
      expect(by_day.map((d: { date: string; records: number }) => [d.date, d.records])).toEqual([
        ['2026-03-02', 4],
        ['2026-03-03', 7],
      ]);
      const day2 = by_day[1].features.find(
        (f: { feature: string }) => f.feature === 'success_evaluation_prompt',
      );
      expect(day2).toMatchObject({ values: { true: 1, false: 1 }, success_rate: 0.5, skipped: 1 });
    });

    it('filters by channel and range', async () => {
      const res = await a.http
        .get('/api/v1/analytics/evaluations?channel=whatsapp&from=2026-03-03T00:00:00Z&to=2026-03-04')
        .expect(200);
      expect(res.body.data.totals.records).toBe(3);
      expect(res.body.data.by_channel.map((c: { channel: string }) => c.channel)).toEqual(['whatsapp']);
    });
  });

  describe('GET /analytics/calls', () => {
    it('counts phone and WhatsApp calls: inbound, outbound, answered and durations', async () => {
      const res = await a.http.get(`/api/v1/analytics/calls?${RANGE}`).expect(200);
      const { totals, by_channel, by_day } = res.body.data;
      expect(totals).toEqual({
        count: 3,
        inbound: 2,
        outbound: 1,
        answered: 2,
        // None of these calls ran answering-machine detection.
        answered_by: { human: 0, machine: 0, fax: 0, unknown: 0 },
        total_duration_seconds: 180,
        mean_duration_seconds: 90,
        max_duration_seconds: 120,
        // Voice conversations without a call record have no call minutes; none of these used a model or speech.
        usage: {
          llm: { prompt_tokens: 0, completion_tokens: 0 },
          stt_seconds: 0,
          tts_characters: 0,
          call_minutes: 0,
          call_minutes_by_leg: { call: 0, forwarded: 0 },
          tool_calls: 0,
          cost: null,
        },
      });
      expect(by_channel.map((c: { channel: string; count: number }) => [c.channel, c.count])).toEqual([
        ['phone', 2],
        ['whatsapp_call', 1],
      ]);
      expect(by_day.map((d: { date: string; count: number }) => [d.date, d.count])).toEqual([
        ['2026-03-02', 1],
        ['2026-03-03', 2],
      ]);
      const none = await a.http.get(`/api/v1/analytics/calls?${RANGE}&channel=sms`).expect(200);
      expect(none.body.data.totals).toMatchObject({ count: 0, mean_duration_seconds: null });
      expect(none.body.data.by_channel).toEqual([]);
    });
  });

  it('refuses bad filters with 422 naming the field, on every aggregate', async () => {
    const cases: [string, string, string][] = [
      ['channel=fax', 'INVALID_FORMAT', 'channel'],
      ['channel=sms,fax', 'INVALID_FORMAT', 'channel'],
      ['channel=', 'INVALID_FORMAT', 'channel'],
      ['agent_uuid=123', 'INVALID_UUID', 'agent_uuid'],
      ['timezone=Mars/Base', 'INVALID_FORMAT', 'timezone'],
      ['from=03/01/2026', 'INVALID_FORMAT', 'from'],
      ['to=2026-03-01T25:00:00Z', 'INVALID_FORMAT', 'to'],
      ['from=2026-03-05&to=2026-03-01', 'VALIDATION_ERROR', 'to'],
    ];
    for (const route of ['sessions', 'evaluations', 'calls'])
      for (const [query, code, field] of cases) {
        const res = await a.http.get(`/api/v1/analytics/${route}?${query}`).expect(422);
        expect(res.body.error).toMatchObject({ code, field });
      }
  });

  it("shows nothing of another workspace's data", async () => {
    for (const route of ['sessions', 'evaluations', 'calls']) {
      const res = await b.http.get(`/api/v1/analytics/${route}?agent_uuid=${agentId}`).expect(200);
      expect(res.body.data.by_channel).toEqual([]);
      expect(res.body.data.by_day).toEqual([]);
      const all = await b.http.get(`/api/v1/analytics/${route}`).expect(200);
      expect(all.body.data.by_channel).toEqual([]);
    }
    const sessions = await b.http.get('/api/v1/analytics/sessions').expect(200);
    expect(sessions.body.data.totals).toMatchObject({ count: 0, messages: 0, messages_per_session: null });
    const evaluations = await b.http.get('/api/v1/analytics/evaluations').expect(200);
    expect(evaluations.body.data.totals).toEqual({ records: 0, features: [] });
  });

  it('documents every analytics route in the OpenAPI document', async () => {
    const doc = (await suite.app.http('any.example.test').get('/docs/openapi.json').expect(200)).body;
    const exportOp = doc.paths['/api/v1/analytics/messages'].get;
    expect(exportOp.tags).toEqual(['Analytics']);
    expect(exportOp.security).toEqual([{ bearer: [] }]);
    expect(exportOp.parameters.map((p: { name: string }) => p.name).sort()).toEqual([
      'agent_uuid',
      'channel',
      'cursor',
      'from',
      'include_system',
      'limit',
      'to',
    ]);
    expect(exportOp.responses['200'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/MessageExportDto',
    );
    expect(Object.keys(exportOp.responses)).toEqual(
      expect.arrayContaining(['200', '401', '403', '422', '429']),
    );
    for (const route of ['sessions', 'evaluations', 'calls']) {
      const op = doc.paths[`/api/v1/analytics/${route}`].get;
      expect(op.summary).toBeTruthy();
      expect(op.parameters.map((p: { name: string }) => p.name).sort()).toEqual([
        'agent_uuid',
        'channel',
        'from',
        'timezone',
        'to',
      ]);
      expect(op.responses['200'].content['application/json'].schema.required).toEqual([
        'success',
        'message',
        'data',
      ]);
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '401', '422']));
    }
  });
});
