import { workspaceIdOf } from '@/common/auth/workspace-id';
import { SPEECH_TO_TEXT_STREAM, StreamingSpeechToText, SttStream } from '@/providers/speech/speech.port';
import { ADMIN_KEY, client } from '../setup/test-app';
import { useTestApp } from '../setup/suite';
import { RealtimeSttServer, spokenWords, WORDS } from '../support/realtime-stt-server';
import { waitFor } from '../support/wait';

const W1 = workspaceIdOf('w-1');

const KEY = 'sk-live-realtime-key-do-not-log-0042';
const words = (...ids: number[]) => ids.map((i) => WORDS[i]).join(' ');

/** 8 kHz audio in 20 ms frames, as a call's media gives it. */
function feed(stream: SttStream, samples: Int16Array): void {
  for (let i = 0; i < samples.length; i += 160) stream.push(samples.subarray(i, i + 160));
}

describe('streaming speech to text (STT_MODE=realtime)', () => {
  const suite = useTestApp({
    servers: { realtime: () => RealtimeSttServer.start() },
    env: ({ realtime }) => ({
      STT_MODE: 'realtime',
      STT_BASE_URL: 'http://127.0.0.1:9/v1',
      STT_API_KEY: KEY,
      STT_REALTIME_URL: realtime.url,
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}-stt-rt`,
      LOG_LEVEL: 'info',
    }),
    captureLogs: true,
    tenants: ['t'],
  });
  const stt = () => suite.app.get<StreamingSpeechToText>(SPEECH_TO_TEXT_STREAM);
  const scrape = async () =>
    (await client(suite.app.url, 'ops.example.test', ADMIN_KEY).get('/metrics').expect(200)).text;
  const sample = (page: string, series: string) => {
    const line = page.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? 0 : Number(line.slice(series.length + 1));
  };

  beforeEach(() => suite.realtime.reset());

  it('opens one session per call with the configured key and model, counted while open', async () => {
    expect(suite.app.config.speech.stt.mode).toBe('realtime');
    const stream = await stt().openStream({
      sampleRate: 8000,
      callId: 'c-1',
      workspaceId: W1,
      language: 'fr',
    });
    expect(stt().openSessions(W1)).toBe(1);
    expect(sample(await scrape(), 'cap_stt_realtime_sessions')).toBe(1);
    const seen = suite.realtime.connections[0];
    expect(seen.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(seen.session).toMatchObject({
      type: 'transcription',
      audio: { input: { transcription: { model: 'gpt-4o-transcribe', language: 'fr' } } },
    });
    feed(stream, spokenWords([0, 20, 21, 22, 23]));
    await waitFor(async () => (stream.interim().includes(WORDS[21]) ? true : undefined), 5000);
    await expect(stream.commit()).resolves.toBe(words(0, 20, 21, 22, 23));
    stream.close();
    expect(stt().openSessions()).toBe(0);
    expect(sample(await scrape(), 'cap_stt_realtime_sessions')).toBe(0);
  });

  it('reconnects a dropped session mid-turn, then falls back when refused; the key is never logged', async () => {
    suite.realtime.plan = (n) => (n === 0 ? { dropAfterMs: 300 } : n === 1 ? {} : { refuse: 'session' });
    const before = await scrape();
    const stream = await stt().openStream({ sampleRate: 8000, callId: 'c-2', workspaceId: W1 });
    feed(stream, spokenWords([3, 4, 5, 6]));
    await expect(stream.commit()).resolves.toBe(words(3, 4, 5, 6));
    const after = await scrape();
    expect(sample(after, 'cap_stt_realtime_reconnects_total')).toBe(
      sample(before, 'cap_stt_realtime_reconnects_total') + 1,
    );
    stream.close();

    const refused = stt().openStream({ sampleRate: 8000, callId: 'c-3' });
    await expect(refused).rejects.toMatchObject({ kind: 'fallback' });
    const page = await scrape();
    expect(sample(page, 'cap_stt_realtime_fallbacks_total{cause="refused"}')).toBe(1);
    // The refusal is the stream's one failure; the connection lost and back again was none.
    expect(sample(page, 'cap_stt_errors_total{mode="realtime",kind="fallback"}')).toBe(1);
    expect(page).not.toMatch(/^cap_stt_errors_total\{mode="realtime",kind="(?!fallback)/m);
    expect(sample(page, 'cap_stt_realtime_sessions')).toBe(0);

    const lines = suite.app.logs();
    expect(lines.some((l) => l.includes('connection lost'))).toBe(true);
    expect(lines.filter((l) => l.includes('fell back'))).toHaveLength(1);
    for (const line of lines) expect(line).not.toContain(KEY);
  });

  it("takes an agent's settings.voice.stt_mode of batch, realtime or null, and refuses any other value by name", async () => {
    const { http } = suite.t;
    for (const stt_mode of ['stream', 1, true]) {
      const bad = await http
        .post('/api/v1/agents')
        .send({ name: 'Listener', settings: { voice: { stt_mode } } })
        .expect(422);
      expect(bad.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'settings.voice.stt_mode' });
    }
    const made = await http
      .post('/api/v1/agents')
      .send({ name: 'Listener', settings: { voice: { stt_mode: 'realtime', end_of_turn_silence_ms: 500 } } })
      .expect(201);
    expect(made.body.data.settings.voice).toMatchObject({
      stt_mode: 'realtime',
      end_of_turn_silence_ms: 500,
    });
    const uuid = made.body.data.uuid as string;
    const bad = await http
      .patch(`/api/v1/agents/${uuid}`)
      .send({ settings: { voice: { stt_mode: 'Realtime' } } })
      .expect(422);
    expect(bad.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'settings.voice.stt_mode' });
    const cleared = await http
      .patch(`/api/v1/agents/${uuid}`)
      .send({ settings: { voice: { stt_mode: null } } })
      .expect(200);
    expect(cleared.body.data.settings.voice).toMatchObject({ stt_mode: null, end_of_turn_silence_ms: 500 });
  });
});
