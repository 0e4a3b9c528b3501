import { SPEECH_TO_TEXT, SpeechToText, TEXT_TO_SPEECH, TextToSpeech } from '@/providers/speech/speech.port';
import { createAgentId } from '../factories/agent.factory';
import { twilioLine } from '../factories/twilio.factory';
import { useTestApp } from '../setup/suite';
import { ADMIN_KEY, client } from '../setup/test-app';
import { defaultAnswer, LlmServer } from '../support/llm-server';
import { MediaClient } from '../support/media-client';
import { SpeechServer } from '../support/speech-server';
import { pcmWav } from '../support/stt-server';
import { TwilioServer } from '../support/twilio-server';
import { voiceEnv } from '../support/voice-env';
import { waitFor } from '../support/wait';
import { WebCallClient } from '../support/web-call-client';

const PUBLIC = 'https://voice-metrics.example.test';

describe('/metrics of voice calls: speech failures and open calls per transport', () => {
  const media: MediaClient[] = [];
  const web: WebCallClient[] = [];
  // Declared before the suite start so the clients close before the app does.
  afterAll(() => [...media, ...web].forEach((c) => c.close()));
  const suite = useTestApp({
    servers: {
      twilio: () => TwilioServer.start(),
      llm: () => LlmServer.start(),
      speech: () => SpeechServer.start(),
    },
    env: (servers) => voiceEnv(servers, PUBLIC),
    tenants: ['t'],
  });

  const scrape = async () =>
    (await client(suite.app.url, 'ops.example.test', ADMIN_KEY).get('/metrics').expect(200)).text;
  /** The value of one series on a page (0 when absent). */
  const sample = (page: string, series: string) => {
    const line = page.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? 0 : Number(line.slice(series.length + 1));
  };
  const speechErrors = (page: string) =>
    page.split('\n').filter((l) => /^cap_(stt|tts)_errors_total\{/.test(l));
  const open = async () => {
    const page = await scrape();
    return {
      twilio: sample(page, 'cap_calls_open{transport="twilio"}'),
      web: sample(page, 'cap_calls_open{transport="web"}'),
    };
  };
  /** Waits until /metrics counts these open calls. */
  const openCalls = (want: { twilio: number; web: number }) =>
    waitFor(
      async () => {
        const now = await open();
        return now.twilio === want.twilio && now.web === want.web ? now : undefined;
      },
      15_000,
      `open calls ${JSON.stringify(want)}`,
    );
  const callOf = async (id: string) =>
    (await suite.t.http.get(`/api/v1/calls/${id}`).expect(200)).body.data as {
      status: string;
      provider_call_id: string | null;
    };

  /** A Twilio call placed through the API, its media stream connected as Twilio does. */
  const twilioCall = async (agentId: string) => {
    const res = await suite.t.http
      .post('/api/v1/call')
      .send({ agent_uuid: agentId, to: '+14155550150' })
      .expect(201);
    const id = res.body.data.uuid as string;
    const sid = (await waitFor(async () => (await callOf(id)).provider_call_id ?? undefined)) as string;
    const twiml = String(suite.twilio.dials().find((d) => String(d.form.Twiml).includes(id))!.form.Twiml);
    const stream = await MediaClient.fromTwiml(suite.app.url, twiml, id, sid);
    media.push(stream);
    return { id, stream };
  };
  /** A web call started by the API, its socket opened and started as the call page does. */
  const webCall = async (agentId: string) => {
    const res = await suite.t.http.post('/api/v1/web-calls').send({ agent_uuid: agentId }).expect(201);
    const url = (res.body.data.websocket_url as string).replace(
      PUBLIC.replace('https', 'wss'),
      suite.app.url.replace('https', 'wss'),
    );
    const page = await WebCallClient.connect(url);
    web.push(page);
    page.start();
    await waitFor(async () => (page.events('started').length ? true : undefined), 10_000, 'started');
    return { id: res.body.data.call.uuid as string, page };
  };

  beforeAll(() => {
    suite.llm.respond = (call) => (call.kind === 'reply' ? { content: 'Sure.' } : defaultAnswer(call));
  });
  afterEach(() => {
    suite.speech.failWith = { stt: 0, tts: 0 };
    suite.speech.ttsLatencyMs = 0;
  });

  it('counts a failed transcription and synthesis by kind (and mode), never an aborted synthesis', async () => {
    const stt = suite.app.get<SpeechToText>(SPEECH_TO_TEXT);
    const tts = suite.app.get<TextToSpeech>(TEXT_TO_SPEECH);
    expect(speechErrors(await scrape())).toEqual([]);

    suite.speech.failWith = { stt: 503, tts: 400 };
    await expect(stt.transcribe(pcmWav(0.5), { language: 'en' })).rejects.toMatchObject({
      kind: 'http',
      status: 503,
    });
    await expect(tts.synthesize('Hello there.', {})).rejects.toMatchObject({ kind: 'http', status: 400 });
    await expect(tts.synthesize('Hello again.', {})).rejects.toMatchObject({ kind: 'http', status: 400 });
    const failed = await scrape();
    expect(speechErrors(failed).sort()).toEqual([
      'cap_stt_errors_total{mode="batch",kind="http_5xx"} 1',
      'cap_tts_errors_total{kind="http_4xx"} 2',
    ]);

    // The caller cuts the speech while the service is still answering: no failure.
    suite.speech.failWith = { stt: 0, tts: 0 };
    suite.speech.ttsLatencyMs = 2_000;
    const asked = suite.speech.speeches.length;
    const cut = new AbortController();
    const synthesis = tts.synthesize('A reply the caller interrupts.', {}, cut.signal);
    await waitFor(async () => (suite.speech.speeches.length > asked ? true : undefined), 5_000, 'request');
    cut.abort();
    await expect(synthesis).rejects.toMatchObject({ kind: 'aborted' });
    suite.speech.ttsLatencyMs = 0;
    await expect(stt.transcribe(pcmWav(0.5), {})).resolves.toBe('');
    expect(speechErrors(await scrape()).sort()).toEqual(speechErrors(failed).sort());
  });

  it('counts the calls whose media session is open here, per transport, until they end', async () => {
    const greeting = { settings: { voice: { first_message: 'Hello.', end_of_turn_silence_ms: 300 } } };
    const line = await twilioLine(suite.t, greeting);
    const agentId = await createAgentId(suite.t, greeting);
    expect(await open()).toEqual({ twilio: 0, web: 0 });

    // A Twilio media stream and a web call at once.
    const phone = await twilioCall(line.agentId);
    await openCalls({ twilio: 1, web: 0 });
    const browser = await webCall(agentId);
    await openCalls({ twilio: 1, web: 1 });

    // The page hangs up: the web call's session ends, the Twilio one goes on.
    browser.page.hangUp();
    await browser.page.whenClosed();
    await openCalls({ twilio: 1, web: 0 });
    // Twilio stops the stream (the caller hung up).
    phone.stream.stop();
    await waitFor(async () => (phone.stream.closed ? true : undefined));
    await openCalls({ twilio: 0, web: 0 });
    await waitFor(async () => ((await callOf(phone.id)).status === 'completed' ? true : undefined));

    // A browser whose connection drops without a close frame.
    const dropped = await webCall(agentId);
    await openCalls({ twilio: 0, web: 1 });
    dropped.page.ws.terminate();
    await openCalls({ twilio: 0, web: 0 });
    expect(await open()).toEqual({ twilio: 0, web: 0 });
  });
});
