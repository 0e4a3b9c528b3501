import { callRoutes, requestRoute, sandboxDestination, sandboxLine } from '../factories/call.factory';
import { createContact } from '../factories/contact.factory';
import { twilioLine } from '../factories/twilio.factory';
import { TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { client, TestApp } from '../setup/test-app';
import { MISSING } from '../support/ids';
import { LlmServer } from '../support/llm-server';
import { postSigned, TWILIO_SID, TWILIO_TOKEN, TwilioServer } from '../support/twilio-server';
import { waitFor } from '../support/wait';

const PUBLIC = 'https://calls.example.test';

describe('calls: provider errors, recording defaults, queued forwards, answers of the call paths', () => {
  // Task dispatchers claim every workspace's due tasks: this suite's database and queues are its own.
  const suite = useTestApp({
    database: 'calls-contract',
    servers: { twilio: () => TwilioServer.start(), llm: () => LlmServer.start() },
    env: ({ llm, twilio }) => ({
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}-calls-contract`,
      LLM_BASE_URL: llm.url,
      TWILIO_ACCOUNT_SID: TWILIO_SID,
      TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
      TWILIO_API_URL: twilio.url,
      PUBLIC_BASE_URL: PUBLIC,
      SANDBOX_ANSWER_DELAY_MS: '100',
    }),
    tenants: ['t', 'other'],
  });
  let twilio: TwilioServer;
  let app: TestApp;
  let t: TestTenant;
  let other: TestTenant;
  let line: { agentId: string; numberId: string; number: string };

  const hook = (path: string, form: Record<string, string>) => postSigned(app.url, `${PUBLIC}${path}`, form);
  const callOf = async (id: string) => (await t.http.get(`/api/v1/calls/${id}`).expect(200)).body.data;
  const statusOf = (id: string, want: string) =>
    waitFor(async () => ((await callOf(id)).status === want ? true : undefined), 10_000, `call ${want}`);
  const dialOf = (id: string) =>
    waitFor(async () => twilio.dials().find((d) => String(d.form.Twiml).includes(id)), 10_000, 'dial');
  const place = async (agentId: string, body: Record<string, unknown> = {}) => {
    const res = await t.http.post('/api/v1/call').send({ agent_uuid: agentId, to: '+14155550140', ...body });
    expect(res.status).toBe(201);
    return res.body.data.uuid as string;
  };
  /** A Twilio call the far end answered: its sid and the status callbacks moved it to in-progress. */
  const answered = async (agentId = line.agentId) => {
    const id = await place(agentId);
    const sid = (await waitFor(async () => (await callOf(id)).provider_call_id ?? undefined)) as string;
    await hook(`/hooks/v1/twilio/calls/${id}/status`, { CallSid: sid, CallStatus: 'in-progress' }).expect(
      204,
    );
    await statusOf(id, 'in-progress');
    return { id, sid };
  };

  beforeAll(async () => {
    ({ twilio, app, t, other } = suite);
    line = await twilioLine(t);
  });

  it.each([
    [21211, "The 'To' number +14155550141 is not a valid phone number."],
    [
      21215,
      'Account not authorized to call +14155550141. Perhaps you need to enable some international permissions.',
    ],
  ])(
    'a dial Twilio refuses (%i) ends the call failed with Twilio’s code and message',
    async (code, message) => {
      twilio.dialError = { status: 400, code, message };
      const id = await place(line.agentId, { to: '+14155550141' });
      await statusOf(id, 'failed');
      expect(await callOf(id)).toMatchObject({
        status: 'failed',
        end_reason: 'provider_error',
        error: { code: `TWILIO_${code}`, message },
      });
    },
  );

  describe('recording', () => {
    const recorded = (form: Record<string, unknown>) => ({
      Record: form.Record,
      RecordingChannels: form.RecordingChannels,
      RecordingStatusCallback: form.RecordingStatusCallback,
    });
    const RECORDS = (id: string) => ({
      Record: 'true',
      RecordingChannels: 'dual',
      RecordingStatusCallback: `${PUBLIC}/hooks/v1/twilio/calls/${id}/recording`,
    });
    const NONE = { Record: undefined, RecordingChannels: undefined, RecordingStatusCallback: undefined };

    it('POST /call records by default; the agent’s settings.voice.record applies; the call’s record overrides it', async () => {
      const byDefault = await place(line.agentId);
      expect(recorded((await dialOf(byDefault)).form)).toEqual(RECORDS(byDefault));
      const notAsked = await place(line.agentId, { record: false });
      expect(recorded((await dialOf(notAsked)).form)).toEqual(NONE);

      const quiet = await twilioLine(t, { settings: { voice: { record: false } } });
      const off = await place(quiet.agentId);
      expect(recorded((await dialOf(off)).form)).toEqual(NONE);
      const asked = await place(quiet.agentId, { record: true });
      expect(recorded((await dialOf(asked)).form)).toEqual(RECORDS(asked));
    });

    it('a task’s call follows the agent’s setting (records by default)', async () => {
      const phone = '+14155550142';
      const contact = await createContact(t, { phone_number: phone });
      await t.http
        .post('/api/v1/tasks')
        .send({
          title: 'Call back',
          type: 'make_call',
          agent_uuid: line.agentId,
          contact_uuid: contact.uuid,
          scheduled_at: new Date(Date.now() + 1500).toISOString(),
        })
        .expect(201);
      const dial = await waitFor(
        async () => twilio.dials().find((d) => d.form.To === phone),
        20_000,
        'the task dialled',
      );
      const id = /\/media\/([0-9a-f-]{36})"/.exec(String(dial.form.Twiml))![1];
      expect(recorded(dial.form)).toEqual(RECORDS(id));
    }, 30_000);
  });

  it('forward to a number on a live Twilio call answers once queued; the outcome follows', async () => {
    const { id, sid } = await answered();
    const started = Date.now();
    const res = await t.http
      .post(`/api/v1/calls/action/${id}/forward`)
      .send({ number: '+14155550188', whisper: true });
    expect({ status: res.status, message: res.body.message }).toEqual({
      status: 200,
      message: 'Forward dispatched',
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(res.body.data).toMatchObject({ action: 'forward', conversation_uuid: id });
    // The call's owner says the message and dials the other leg once.
    const update = await waitFor(async () =>
      twilio.updates(sid).find((u) => String(u.form.Twiml ?? '').includes('<Dial')),
    );
    const twiml = String(update.form.Twiml);
    expect(twiml).toContain('+14155550188</Number></Dial>');
    expect(twiml).toContain('/whisper?');
    // The other leg answers: the call is the human's.
    const statusUrl = /statusCallback="([^"]+)"/.exec(twiml)![1].replace(/&amp;/g, '&');
    await postSigned(app.url, statusUrl, { CallSid: sid, CallStatus: 'in-progress' }).expect(204);
    const forwarded = await waitFor(async () => {
      const call = await callOf(id);
      return call.handled_by === 'Human' ? call : undefined;
    }, 10_000);
    expect(forwarded.forwarded_to).toMatchObject({ type: 'phone_number', value: '+14155550188' });
    expect(twilio.updates(sid).filter((u) => String(u.form.Twiml ?? '').includes('<Dial'))).toHaveLength(1);
  });

  it('DELETE /calls/{uuid}/recording answers data: null and removes the recording', async () => {
    const id = await place(line.agentId);
    const sid = (await waitFor(async () => (await callOf(id)).provider_call_id ?? undefined)) as string;
    const recordingSid = `RE${'0'.repeat(31)}9`;
    twilio.recordings.set(recordingSid, Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(500, 1)]));
    await hook(`/hooks/v1/twilio/calls/${id}/recording`, {
      CallSid: sid,
      RecordingSid: recordingSid,
      RecordingUrl: twilio.recordingUrl(recordingSid),
      RecordingStatus: 'completed',
      RecordingDuration: '3',
      RecordingChannels: '2',
    }).expect(204);
    await waitFor(async () =>
      (await t.http.get(`/api/v1/calls/${id}/recording`)).status === 200 ? true : undefined,
    );
    const res = await t.http.delete(`/api/v1/calls/${id}/recording`).expect(200);
    expect(res.body).toEqual({ success: true, message: 'Deleted', data: null });
    expect((await callOf(id)).recording).toBeNull();
    await t.http.get(`/api/v1/calls/${id}/recording`).expect(404);
  });

  it('an unknown or another workspace’s call: the short body on GET /calls/{uuid} only, the general 404 elsewhere', async () => {
    const sandbox = await sandboxLine(t);
    const res = await t.http
      .post('/api/v1/call')
      .send({ agent_uuid: sandbox.agentId, to: sandboxDestination('0009') })
      .expect(201);
    const theirs = res.body.data.uuid as string;
    for (const [who, id] of [
      [t, MISSING],
      [other, theirs],
    ] as const) {
      const short = await who.http.get(`/api/v1/calls/${id}`).expect(404);
      expect(short.body).toEqual({ success: false, message: 'Call not found', data: [] });
      for (const route of callRoutes(id)) {
        const r = await requestRoute(who, route);
        const path = route[1];
        expect({ path, status: r.status, body: r.body }).toEqual({
          path,
          status: 404,
          body: {
            success: false,
            message: 'Call not found',
            error: expect.objectContaining({ code: 'RESOURCE_NOT_FOUND' }),
          },
        });
      }
    }
    await t.http.post(`/api/v1/calls/${theirs}/simulate`).send({ action: 'hangup' }).expect(200);
  });

  it('POST /calls/{uuid}/simulate answers message OK', async () => {
    const sandbox = await sandboxLine(t);
    const res = await t.http
      .post('/api/v1/call')
      .send({ agent_uuid: sandbox.agentId, to: sandboxDestination('0009') })
      .expect(201);
    const id = res.body.data.uuid as string;
    await statusOf(id, 'ringing');
    const answer = await t.http.post(`/api/v1/calls/${id}/simulate`).send({ action: 'answer' }).expect(200);
    expect(answer.body).toMatchObject({ success: true, message: 'OK' });
    const hang = await t.http.post(`/api/v1/calls/${id}/simulate`).send({ action: 'hangup' }).expect(200);
    expect(hang.body.message).toBe('OK');
  });

  it('the OpenAPI document shows these answers', async () => {
    const doc = (await client(app.url, 'localhost').get('/docs/openapi.json').expect(200)).body;
    const op = (path: string, method: string) => doc.paths[path][method];
    expect(Object.keys(op('/api/v1/calls/{uuid}/live', 'get').responses['200'].content)).toEqual([
      'text/event-stream',
    ]);
    const deleted = op('/api/v1/calls/{uuid}/recording', 'delete').responses['200'];
    expect(deleted.content['application/json'].schema.properties.data.enum).toEqual([null]);
    for (const [path, method] of [
      ['/api/v1/calls/{uuid}/live', 'get'],
      ['/api/v1/calls/{uuid}/recording', 'get'],
      ['/api/v1/calls/{uuid}/recording', 'delete'],
      ['/api/v1/calls/{uuid}/simulate', 'post'],
      ['/api/v1/calls/action/{uuid}/forward', 'post'],
    ]) {
      const notFound = op(path, method).responses['404'];
      expect({ path, method, schema: notFound.content['application/json'].schema }).toEqual({
        path,
        method,
        schema: { $ref: '#/components/schemas/ErrorBody' },
      });
    }
    expect(JSON.stringify(op('/api/v1/calls/{uuid}', 'get').responses['404'])).toContain('ShortErrorBodyDto');
    expect(
      op('/api/v1/calls/{uuid}/simulate', 'post').responses['200'].content['application/json'].schema,
    ).toMatchObject({ properties: { message: { example: 'OK' } } });
  });
});
