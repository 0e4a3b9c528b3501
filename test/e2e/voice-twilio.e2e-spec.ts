import { createTenant, TestTenant } from '../factories/workspace.factory';
import { useTestApp } from '../setup/suite';
import { twilioLine } from '../factories/twilio.factory';
import { startTestApp, TestApp } from '../setup/test-app';
import { MISSING } from '../support/ids';
import { LlmServer } from '../support/llm-server';
import { postSigned, TWILIO_SID, TWILIO_TOKEN, TwilioServer } from '../support/twilio-server';
import { waitFor } from '../support/wait';
import { scanKeys } from '../support/redis-keys';
import { MediaSessions } from '@/modules/voice/media/media-sessions';
import { TwilioTelephony } from '@/providers/telephony/twilio.telephony';

const PUBLIC = 'https://voice.example.test';

describe('voice: the Twilio adapter (REST dial, signed hooks, inbound, hang-up, recordings)', () => {
  const suite = useTestApp({
    servers: { twilio: () => TwilioServer.start(), llm: () => LlmServer.start() },
    env: ({ llm, twilio }) => ({
      LLM_BASE_URL: llm.url,
      TWILIO_ACCOUNT_SID: TWILIO_SID,
      TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
      TWILIO_API_URL: twilio.url,
      PUBLIC_BASE_URL: PUBLIC,
    }),
    tenants: ['t', 'other'],
  });
  let twilio: TwilioServer;
  let app: TestApp;
  let t: TestTenant;
  let other: TestTenant;
  let line: { agentId: string; numberId: string; number: string };

  const hook = (path: string, form: Record<string, string>, options?: { signature?: string | null }) =>
    postSigned(app.url, `${PUBLIC}${path}`, form, options);
  const callOf = async (id: string) => (await t.http.get(`/api/v1/calls/${id}`).expect(200)).body.data;
  const statusOf = (id: string, want: string) =>
    waitFor(async () => ((await callOf(id)).status === want ? true : undefined), 10_000, `call ${want}`);
  const placed = async (body: Record<string, unknown> = {}) => {
    const res = await t.http
      .post('/api/v1/call')
      .send({ agent_uuid: line.agentId, to: '+14155550123', ...body });
    expect(res.status).toBe(201);
    const id = res.body.data.uuid as string;
    const sid = await waitFor(
      async () => (await callOf(id)).provider_call_id ?? undefined,
      10_000,
      'dialled',
    );
    return { id, sid: sid as string };
  };

  beforeAll(async () => {
    ({ twilio, app, t, other } = suite);
    line = await twilioLine(t);
  });

  it('dials through REST with the <Connect><Stream> TwiML, the status callback and basic auth', async () => {
    const { id, sid } = await placed({ record: true });
    const dial = twilio.dials().find((d) => String(d.form.Twiml).includes(id))!;
    expect(dial.authorization).toBe(
      `Basic ${Buffer.from(`${TWILIO_SID}:${TWILIO_TOKEN}`).toString('base64')}`,
    );
    expect(dial.form).toMatchObject({
      To: '+14155550123',
      From: line.number,
      Timeout: '30',
      StatusCallback: `${PUBLIC}/hooks/v1/twilio/calls/${id}/status`,
      StatusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'],
      Record: 'true',
      RecordingChannels: 'dual',
      RecordingStatusCallback: `${PUBLIC}/hooks/v1/twilio/calls/${id}/recording`,
    });
    expect(dial.form.Twiml).toMatch(
      new RegExp(
        `^<\\?xml[^>]*\\?><Response><Connect><Stream url="wss://voice\\.example\\.test/hooks/v1/twilio/media/${id}">` +
          '<Parameter name="token" value="[A-Za-z0-9_-]{20,}"/></Stream></Connect></Response>$',
      ),
    );
    expect(sid).toMatch(/^CA/);
  });

  it('signed status callbacks move the call; repeats are dropped; unsigned or wrongly signed ones are 401', async () => {
    const { id, sid } = await placed();
    const path = `/hooks/v1/twilio/calls/${id}/status`;
    const unsigned = await hook(path, { CallSid: sid, CallStatus: 'ringing' }, { signature: null });
    expect(unsigned.status).toBe(401);
    expect(unsigned.body.error.code).toBe('INVALID_SIGNATURE');
    const forged = await hook(
      path,
      { CallSid: sid, CallStatus: 'ringing' },
      { signature: 'bm90IGEgc2lnbmF0dXJl' },
    );
    expect(forged.status).toBe(401);
    // Signed for another URL (the Host header is never trusted): refused as well.
    const elsewhere = await postSigned(app.url, `https://attacker.example.test${path}`, {
      CallSid: sid,
      CallStatus: 'in-progress',
    });
    expect(elsewhere.status).toBe(401);
    expect((await callOf(id)).status).toBe('queued');

    await hook(path, { CallSid: sid, CallStatus: 'ringing', SequenceNumber: '1' }).expect(204);
    await statusOf(id, 'ringing');
    await hook(path, { CallSid: sid, CallStatus: 'in-progress', SequenceNumber: '2' }).expect(204);
    await statusOf(id, 'in-progress');
    await hook(path, { CallSid: sid, CallStatus: 'in-progress', SequenceNumber: '2' }).expect(204);
    await hook(path, {
      CallSid: sid,
      CallStatus: 'completed',
      CallDuration: '7',
      SequenceNumber: '3',
    }).expect(204);
    await statusOf(id, 'completed');
    const ended = await callOf(id);
    expect(ended.end_reason).toBe('customer_hangup');
    // A late event never moves it back.
    await hook(path, { CallSid: sid, CallStatus: 'ringing', SequenceNumber: '4' }).expect(204);
    await new Promise((r) => setTimeout(r, 300));
    expect((await callOf(id)).status).toBe('completed');
    await hook(`/hooks/v1/twilio/calls/${MISSING}/status`, { CallSid: sid, CallStatus: 'ringing' }).expect(
      404,
    );
  });

  it('a provider refusal ends the call failed with the provider error', async () => {
    twilio.dialError = { status: 400, code: 21211, message: "The 'To' number is not a valid phone number." };
    const res = await t.http.post('/api/v1/call').send({ agent_uuid: line.agentId, to: '+14155550124' });
    const id = res.body.data.uuid as string;
    await statusOf(id, 'failed');
    const call = await callOf(id);
    expect(call.end_reason).toBe('provider_error');
    expect(call.error.message).toContain('not a valid phone number');
  });

  it('hangup on a ringing call cancels it through REST (Status=canceled)', async () => {
    const { id, sid } = await placed();
    await hook(`/hooks/v1/twilio/calls/${id}/status`, { CallSid: sid, CallStatus: 'ringing' }).expect(204);
    await statusOf(id, 'ringing');
    await t.http.post(`/api/v1/calls/action/${id}/hangup`).send({}).expect(200);
    expect((await callOf(id)).status).toBe('canceled');
    await waitFor(async () =>
      twilio.updates(sid).some((u) => u.form.Status === 'canceled') ? true : undefined,
    );
  });

  it('an inbound call on a bound number creates a ringing call for the bound agent and answers the stream TwiML', async () => {
    const sid = `CA${'1'.repeat(32)}`;
    const form = { CallSid: sid, From: '+14155550999', To: line.number, CallStatus: 'ringing' };
    const bad = await hook('/hooks/v1/twilio/voice/inbound', form, { signature: 'AAAA' });
    expect(bad.status).toBe(401);
    expect((await t.http.get('/api/v1/calls?direction=Inbound').expect(200)).body.data.items).toHaveLength(0);

    const res = await hook('/hooks/v1/twilio/voice/inbound', form).expect(200);
    expect(res.headers['content-type']).toMatch(/text\/xml/);
    const calls = (await t.http.get('/api/v1/calls?direction=Inbound').expect(200)).body.data.items;
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      status: 'ringing',
      direction: 'Inbound',
      provider: 'twilio',
      provider_call_id: sid,
      agent: { uuid: line.agentId },
      from_number: '+14155550999',
    });
    expect(res.text).toContain(`/hooks/v1/twilio/media/${calls[0].uuid}`);
    // Twilio retrying the same call gets the same answer and no second call.
    const again = await hook('/hooks/v1/twilio/voice/inbound', form).expect(200);
    expect(again.text).toBe(res.text);
    expect((await t.http.get('/api/v1/calls?direction=Inbound').expect(200)).body.data.items).toHaveLength(1);
    // Another workspace never sees it.
    await other.http.get(`/api/v1/calls/${calls[0].uuid}`).expect(404);

    const unknown = await hook('/hooks/v1/twilio/voice/inbound', {
      ...form,
      CallSid: `CA${'2'.repeat(32)}`,
      To: '+19995550000',
    }).expect(200);
    expect(unknown.text).toContain('<Say>This number is not in service.</Say><Hangup/>');
  });

  it('a finished recording is downloaded, deleted at Twilio and served with Range', async () => {
    const { id, sid } = await placed({ record: true });
    const wav = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(2000, 7)]);
    twilio.recordings.set('RE' + '0'.repeat(31) + '1', wav);
    const path = `/hooks/v1/twilio/calls/${id}/recording`;
    const form = {
      CallSid: sid,
      RecordingSid: 'RE' + '0'.repeat(31) + '1',
      RecordingUrl: twilio.recordingUrl('RE' + '0'.repeat(31) + '1'),
      RecordingStatus: 'completed',
      RecordingDuration: '12',
      RecordingChannels: '2',
    };
    await hook(path, form, { signature: null }).expect(401);
    await hook(path, form).expect(204);
    const got = await waitFor(async () => {
      const res = await t.http.get(`/api/v1/calls/${id}/recording`).buffer(true);
      return res.status === 200 ? res : undefined;
    });
    expect(got.headers['content-type']).toMatch(/audio\/wav/);
    expect(Buffer.compare(got.body as Buffer, wav)).toBe(0);
    const part = await t.http.get(`/api/v1/calls/${id}/recording`).set('Range', 'bytes=0-3').buffer(true);
    expect(part.status).toBe(206);
    expect((part.body as Buffer).toString()).toBe('RIFF');
    expect((await callOf(id)).recording).toEqual({
      url: `/api/v1/calls/${id}/recording`,
      duration: 12,
      channels: 2,
    });
    await waitFor(async () => (twilio.deletedRecordings.includes(form.RecordingSid) ? true : undefined));
    await other.http.get(`/api/v1/calls/${id}/recording`).expect(404);
    await other.http.delete(`/api/v1/calls/${id}/recording`).expect(404);
    await t.http.delete(`/api/v1/calls/${id}/recording`).expect(200);
    await t.http.get(`/api/v1/calls/${id}/recording`).expect(404);
  });

  it('without speech to text and text to speech a Twilio call is refused and an inbound one hears why', async () => {
    const mute = await startTestApp({
      TWILIO_ACCOUNT_SID: TWILIO_SID,
      TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
      TWILIO_API_URL: twilio.url,
      PUBLIC_BASE_URL: PUBLIC,
    });
    try {
      const u = await createTenant(mute);
      const speechless = await twilioLine(u);
      const res = await u.http
        .post('/api/v1/call')
        .send({ agent_uuid: speechless.agentId, to: '+14155550125' });
      expect(res.status).toBe(409);
      expect(res.body.message).toBe('Speech services are not configured');
      const form = { CallSid: `CA${'3'.repeat(32)}`, From: '+14155550998', To: speechless.number };
      const inbound = await postSigned(mute.url, `${PUBLIC}/hooks/v1/twilio/voice/inbound`, form).expect(200);
      expect(inbound.text).toContain('<Say>Speech services are not configured</Say><Hangup/>');
      // Twilio repeats the hook: the same answer, still one stored call.
      await postSigned(mute.url, `${PUBLIC}/hooks/v1/twilio/voice/inbound`, form).expect(200);
      const calls = (await u.http.get('/api/v1/calls?direction=Inbound').expect(200)).body.data.items;
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({
        status: 'failed',
        end_reason: 'provider_error',
        error: { code: 'SPEECH_UNAVAILABLE', message: 'Speech services are not configured' },
      });
    } finally {
      await mute.close();
    }
  });

  it("keeps its Redis keys under the deployment's prefix once (hooks' repeats, inbound, forwards, pending speech)", async () => {
    const prefix = app.config.redis.prefix;
    const { id, sid } = await placed();
    await hook(`/hooks/v1/twilio/calls/${id}/status`, {
      CallSid: sid,
      CallStatus: 'ringing',
      SequenceNumber: '0',
    }).expect(204);
    const inboundSid = `CA${'4'.repeat(32)}`;
    await hook('/hooks/v1/twilio/voice/inbound', {
      CallSid: inboundSid,
      From: '+14155550997',
      To: line.number,
      CallStatus: 'ringing',
    }).expect(200);
    // Words said before the stream opens are kept for it.
    await app.get<MediaSessions>(MediaSessions).speak(t.workspaceId, id, 'Hello', 'message-1', 'twilio');
    // A forward waits on the hooks for the other leg's outcome.
    const forward = app
      .get<TwilioTelephony>(TwilioTelephony)
      .forward(
        { workspaceId: t.workspaceId, callId: id, providerCallId: sid, to: '+14155550123' },
        { type: 'phone_number', value: '+14155550188', whisper: null },
      );
    const update = await waitFor(async () =>
      twilio.updates(sid).find((u) => String(u.form.Twiml).includes('<Dial')),
    );
    const attempt = /attempt=([a-z0-9]+)/.exec(String(update.form.Twiml))![1];
    await hook(`/hooks/v1/twilio/calls/${id}/dial-status?attempt=${attempt}`, {
      CallStatus: 'in-progress',
    }).expect(204);
    await expect(forward).resolves.toEqual({ connected: true });

    const keys = await scanKeys(prefix);
    expect(keys.filter((k) => k.startsWith(`${prefix}:${prefix}:`))).toEqual([]);
    expect(keys).toEqual(
      expect.arrayContaining([
        `${prefix}:twilio:seen:status:${sid}:ringing:0`,
        `${prefix}:twilio:inbound:${inboundSid}`,
        `${prefix}:twilio:forwarding:${id}`,
        `${prefix}:twilio:dial:${id}:${attempt}`,
        `${prefix}:voice:pending:${id}`,
      ]),
    );
  });
});
