import { SPEECH_TO_TEXT, SpeechToText, TEXT_TO_SPEECH, TextToSpeech } from '@/providers/speech/speech.port';
import { useTestApp } from '../setup/suite';
import { ADMIN_KEY, client } from '../setup/test-app';
import { defaultAnswer, LlmServer } from '../support/llm-server';
import { SpeechServer } from '../support/speech-server';
import { pcmWav } from '../support/stt-server';
import { TwilioServer } from '../support/twilio-server';
import { voiceEnv } from '../support/voice-env';
import { waitFor } from '../support/wait';

const PUBLIC = 'https://voice-metrics.example.test';

describe('/metrics of voice calls: speech failures', () => {
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
  const speechErrors = (page: string) =>
    page.split('\n').filter((l) => /^cap_(stt|tts)_errors_total\{/.test(l));

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
});
