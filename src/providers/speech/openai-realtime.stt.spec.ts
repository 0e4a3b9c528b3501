import { Logger } from '@nestjs/common';
import { Metrics } from '@/common/metrics/metrics';
import { type WorkspaceId, workspaceIdOf } from '@/common/auth/workspace-id';
import { runInUsageScope, UsageReport } from '@/providers/usage-report';
import type { RealtimeSttConfig } from '@/config/app.config';
import { RealtimeSttServer, spokenWords, WORDS } from '../../../test/support/realtime-stt-server';
import { waitFor } from '../../../test/support/wait';
import { OpenAiRealtimeSpeechToText } from './openai-realtime.stt';
import { PcmResampler } from './pcm-resampler';
import { REALTIME_STT_LIMITS, RealtimeSttLimits } from './realtime-stt.stream';
import { SpeechError, SttStream, sttModeOf } from './speech.port';

const KEY = 'sk-realtime-secret-4242';
const words = (...ids: number[]) => ids.map((i) => WORDS[i]).join(' ');

/** Pushes 8 kHz audio in 20 ms frames, as a call's media does. */
function feed(stream: SttStream, samples: Int16Array): void {
  for (let i = 0; i < samples.length; i += 160) stream.push(samples.subarray(i, i + 160));
}

/** The value of one sample of a Prometheus text page (0 when absent). */
async function sample(metrics: Metrics, series: string): Promise<number> {
  const line = (await metrics.scrape()).split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe('OpenAiRealtimeSpeechToText', () => {
  let server: RealtimeSttServer;
  let metrics: Metrics;
  let logs: string[];
  const streams: SttStream[] = [];

  const provider = (config: Partial<RealtimeSttConfig> = {}, limits: Partial<RealtimeSttLimits> = {}) =>
    new OpenAiRealtimeSpeechToText(
      {
        url: server.url,
        apiKey: KEY,
        model: 'gpt-4o-transcribe',
        protocol: 'openai',
        serverVad: false,
        ...config,
      },
      { metrics, limits: { ...REALTIME_STT_LIMITS, connectWithinMs: 1500, ...limits } },
    );
  const open = async (stt = provider(), options: { callId?: string; workspaceId?: WorkspaceId } = {}) => {
    const stream = await stt.openStream({ sampleRate: 8000, language: 'en', ...options });
    streams.push(stream);
    return stream;
  };
  /** Every delta given out, with whether it was of a committed segment. */
  const deltasOf = (stream: SttStream) => {
    const seen: Array<{ text: string; committed: boolean }> = [];
    stream.on('delta', (text, committed) => seen.push({ text, committed }));
    return seen;
  };

  beforeAll(async () => {
    server = await RealtimeSttServer.start();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.reset();
    metrics = new Metrics();
    logs = [];
    for (const level of ['log', 'warn', 'error', 'debug', 'verbose'] as const)
      jest
        .spyOn(Logger.prototype, level)
        .mockImplementation((...args: unknown[]) => void logs.push(args.map(String).join(' ')));
  });
  afterEach(() => {
    for (const s of streams.splice(0)) s.close();
    jest.restoreAllMocks();
    // No log line, whatever happened, holds the key.
    for (const line of logs) expect(line).not.toContain(KEY);
  });

  it('gives words while the caller speaks, and the final words of the turn on commit', async () => {
    const stream = await open();
    const deltas = deltasOf(stream);
    const finals: string[] = [];
    stream.on('final', (t) => finals.push(t));
    feed(stream, spokenWords([0, 1, 2, 3, 4, 5]));
    // Words before any commit: the service hears them as the audio arrives.
    await waitFor(async () => (stream.interim().split(' ').length >= 4 ? true : undefined), 3000);
    expect(server.connections[0].events).not.toContain('input_audio_buffer.commit');
    expect(words(0, 1, 2, 3, 4, 5).startsWith(stream.interim())).toBe(true);

    const final = await stream.commit();
    expect(final).toBe(words(0, 1, 2, 3, 4, 5));
    expect(finals).toEqual([final]);
    expect(stream.interim()).toBe('');
    expect(deltas.map((d) => d.text).join('')).toBe(final);
    const seen = server.connections[0];
    expect(seen.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(seen.headers['openai-beta']).toBeUndefined();
    expect(seen.session).toEqual({
      type: 'transcription',
      audio: {
        input: {
          format: { type: 'audio/pcm', rate: 24000 },
          transcription: { model: 'gpt-4o-transcribe', language: 'en' },
          turn_detection: null,
        },
      },
    });
    // 8 kHz in, 24 kHz out: 6 words of 200 ms.
    expect(seen.audioMs).toBeCloseTo(1200, 0);
  });

  it('counts the audio sent (resent audio too) for the work that opened the stream', async () => {
    server.plan = (n) => (n === 0 ? { dropAfterMs: 500 } : {});
    const reports: UsageReport[] = [];
    const stream = await runInUsageScope({ report: (u) => reports.push(u) }, () => open());
    feed(stream, spokenWords([0, 1, 2, 3]));
    await expect(stream.commit()).resolves.toBe(words(0, 1, 2, 3));
    stream.close();
    const ms = reports.reduce((n, r) => n + (r.sttMs ?? 0), 0);
    // 800 ms of speech, some of it sent twice after the drop.
    expect(ms).toBeGreaterThanOrEqual(800);
    expect(ms).toBeLessThanOrEqual(1600);
    expect(server.connections.reduce((n, c) => n + c.audioMs, 0)).toBeLessThanOrEqual(ms);
    expect(server.connections[1].audioMs).toBeCloseTo(800, 0);
  });

  it('answers each turn once, in order, audio pushed after a commit going to the next turn', async () => {
    const stream = await open();
    feed(stream, spokenWords([0, 1, 2]));
    const first = stream.commit();
    feed(stream, spokenWords([3, 4]));
    const second = stream.commit();
    const third = stream.commit();
    await expect(Promise.all([first, second, third])).resolves.toEqual([words(0, 1, 2), words(3, 4), '']);
  });

  it('speaks the beta protocol when asked: transcription_session.update and the OpenAI-Beta header', async () => {
    const stream = await open(provider({ protocol: 'openai-beta' }));
    feed(stream, spokenWords([7, 8, 9]));
    await expect(stream.commit()).resolves.toBe(words(7, 8, 9));
    const seen = server.connections[0];
    expect(seen.headers['openai-beta']).toBe('realtime=v1');
    expect(seen.events[0]).toBe('transcription_session.update');
    expect(seen.session).toEqual({
      input_audio_format: 'pcm16',
      input_audio_transcription: { model: 'gpt-4o-transcribe', language: 'en' },
      turn_detection: null,
    });
  });

  it('takes the words of a service that transcribes only committed audio, as deltas of the committed turn', async () => {
    server.plan = () => ({ deltas: 'committed' });
    const stream = await open();
    const deltas = deltasOf(stream);
    feed(stream, spokenWords([0, 5, 6, 7]));
    await expect(stream.commit()).resolves.toBe(words(0, 5, 6, 7));
    expect(deltas.every((d) => d.committed)).toBe(true);
    expect(stream.interim()).toBe('');
  });

  it('reconnects after the socket drops mid-turn and answers the whole turn once', async () => {
    server.plan = (n) => (n === 0 ? { dropAfterMs: 700 } : {});
    const stream = await open();
    const deltas = deltasOf(stream);
    feed(stream, spokenWords([0, 1, 2]));
    await expect(stream.commit()).resolves.toBe(words(0, 1, 2));
    // The next turn: the socket drops after 100 ms of it.
    feed(stream, spokenWords([3, 4, 5, 6, 7, 8]));
    await waitFor(async () => (server.connections.length === 2 ? true : undefined), 3000);
    feed(stream, spokenWords([9, 10]));
    await expect(stream.commit()).resolves.toBe(words(3, 4, 5, 6, 7, 8, 9, 10));

    expect(server.connections[0].closed).toBe(true);
    // The new connection got the unanswered turn only, not the one answered before the drop.
    expect(server.connections[1].heard).toEqual(words(3, 4, 5, 6, 7, 8, 9, 10).split(' '));
    expect(server.connections[1].audioMs).toBeCloseTo(1600, 0);
    // No word given out twice.
    expect(deltas.map((d) => d.text).join('')).toBe(`${words(0, 1, 2)}${words(3, 4, 5, 6, 7, 8, 9, 10)}`);
    expect(await sample(metrics, 'cap_stt_realtime_reconnects_total')).toBe(1);
    expect(logs.filter((l) => l.includes('connection lost'))).toHaveLength(1);
  });

  it('sends a committed turn again when the socket drops before its words came', async () => {
    server.plan = (n) => (n === 0 ? { completeLatencyMs: 10_000, dropAfterMs: 900 } : {});
    const stream = await open();
    feed(stream, spokenWords([11, 12, 13]));
    const first = stream.commit();
    feed(stream, spokenWords([14, 15]));
    await expect(first).resolves.toBe(words(11, 12, 13));
    await expect(stream.commit()).resolves.toBe(words(14, 15));
    expect(server.connections[1].heard).toEqual(words(11, 12, 13, 14, 15).split(' '));
    expect(server.connections[1].events.filter((e) => e === 'input_audio_buffer.commit')).toHaveLength(2);
  });

  it('takes a connection gone silent (no close) as lost, and answers the turn on a new one', async () => {
    server.plan = (n) => (n === 0 ? { stallAfterMs: 200 } : {});
    const stream = await open(provider({}, { keepAliveMs: 100 }));
    feed(stream, spokenWords([16, 17, 18]));
    await expect(stream.commit()).resolves.toBe(words(16, 17, 18));
    expect(server.connections).toHaveLength(2);
    expect(server.connections[1].heard).toEqual(words(16, 17, 18).split(' '));
    expect(logs.filter((l) => l.includes('connection lost'))).toHaveLength(1);
  });

  it("cuts at the service's own pauses with server VAD, giving words while the caller speaks", async () => {
    server.plan = () => ({ deltas: 'committed' });
    const stream = await open(provider({ serverVad: true }));
    const deltas = deltasOf(stream);
    // Two phrases with a pause the service hears (300 ms), then the end of the turn after more silence.
    feed(stream, spokenWords([0, 1, 2, null, null, 3, 4, null, null]));
    await waitFor(async () => (stream.interim() === words(0, 1, 2, 3, 4) ? true : undefined), 3000);
    expect(deltas.some((d) => !d.committed)).toBe(true);
    await expect(stream.commit()).resolves.toBe(words(0, 1, 2, 3, 4));
    const seen = server.connections[0];
    expect((seen.session as any).audio.input.turn_detection).toEqual({ type: 'server_vad' });
    // The silence after the last pause is cleared, not transcribed.
    await waitFor(async () => (seen.events.includes('input_audio_buffer.clear') ? true : undefined));
    expect(seen.events).not.toContain('input_audio_buffer.commit');
  });

  it('with server VAD, sends again after a drop only the audio past the phrases already transcribed', async () => {
    server.plan = (n) => (n === 0 ? { dropAfterMs: 1500 } : {});
    const stream = await open(provider({ serverVad: true }));
    feed(stream, spokenWords([5, 6, 7, null, null]));
    await waitFor(async () => (stream.interim() === words(5, 6, 7) ? true : undefined), 3000);
    feed(stream, spokenWords([8, 9, 10, 11]));
    await waitFor(async () => (server.connections.length === 2 ? true : undefined), 3000);
    await expect(stream.commit()).resolves.toBe(words(5, 6, 7, 8, 9, 10, 11));
    expect(server.connections[1].heard).toEqual(words(8, 9, 10, 11).split(' '));
  });

  it('falls back at open when the service refuses the session, counted and logged once', async () => {
    server.plan = () => ({ refuse: 'session' });
    const err = await provider()
      .openStream({ sampleRate: 8000 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SpeechError);
    expect(err).toMatchObject({ kind: 'fallback', message: expect.stringContaining('Session refused') });
    expect(server.connections).toHaveLength(1);
    expect(await sample(metrics, 'cap_stt_realtime_fallbacks_total{cause="refused"}')).toBe(1);
    expect(await sample(metrics, 'cap_stt_realtime_sessions')).toBe(0);
    expect(logs.filter((l) => l.includes('fell back'))).toHaveLength(1);
  });

  it.each([401, 403] as const)(
    'falls back at once on an upgrade answered %s, without trying again',
    async (status) => {
      server.plan = () => ({ refuse: status });
      await expect(provider().openStream({ sampleRate: 16000 })).rejects.toMatchObject({
        kind: 'fallback',
        message: expect.stringContaining(`HTTP ${status}`),
      });
      expect(server.connections).toHaveLength(1);
    },
  );

  it('falls back when the service cannot be reached within the bound', async () => {
    const stt = new OpenAiRealtimeSpeechToText(
      { url: 'ws://127.0.0.1:9/v1/realtime', apiKey: KEY, model: 'm', protocol: 'openai', serverVad: false },
      { metrics, limits: { ...REALTIME_STT_LIMITS, connectWithinMs: 400 } },
    );
    await expect(stt.openStream({ sampleRate: 8000 })).rejects.toMatchObject({ kind: 'fallback' });
    expect(await sample(metrics, 'cap_stt_realtime_fallbacks_total{cause="unreachable"}')).toBe(1);
    expect(await sample(metrics, 'cap_stt_errors_total{mode="realtime",kind="fallback"}')).toBe(1);
  });

  it('falls back mid-call when the connection is lost and cannot come back: commits reject, the stream ends', async () => {
    server.plan = (n) => (n === 0 ? { dropAfterMs: 300 } : { refuse: 401 });
    const stream = await open();
    const fallbacks: SpeechError[] = [];
    stream.on('fallback', (e) => fallbacks.push(e));
    expect(await sample(metrics, 'cap_stt_realtime_sessions')).toBe(1);
    feed(stream, spokenWords([0, 1]));
    const pending = stream.commit();
    await expect(pending).rejects.toMatchObject({ kind: 'fallback' });
    expect(fallbacks).toHaveLength(1);
    await expect(stream.commit()).rejects.toMatchObject({ kind: 'fallback' });
    stream.push(spokenWords([2]));
    expect(await sample(metrics, 'cap_stt_realtime_sessions')).toBe(0);
    expect(await sample(metrics, 'cap_stt_realtime_fallbacks_total{cause="refused"}')).toBe(1);
    // One failure, the fallback: not each commit it rejected.
    expect(await sample(metrics, 'cap_stt_errors_total{mode="realtime",kind="fallback"}')).toBe(1);
    expect(logs.filter((l) => l.includes('fell back'))).toHaveLength(1);
  });

  it('rejects a turn the service failed to transcribe, and one whose words never come: each counted', async () => {
    server.plan = () => ({ failTranscription: true });
    const failing = await open();
    feed(failing, spokenWords([1, 2]));
    await expect(failing.commit()).rejects.toMatchObject({ kind: 'invalid_response' });

    server.plan = () => ({ completeLatencyMs: 5_000 });
    const slow = await open(provider({}, { finalTimeoutMs: 200 }));
    feed(slow, spokenWords([3]));
    await expect(slow.commit()).rejects.toMatchObject({ kind: 'timeout' });
    expect(await sample(metrics, 'cap_stt_errors_total{mode="realtime",kind="invalid_response"}')).toBe(1);
    expect(await sample(metrics, 'cap_stt_errors_total{mode="realtime",kind="timeout"}')).toBe(1);
  });

  it('keeps one stream per call and counts the open ones; close ends the session', async () => {
    const [W1, W2] = [workspaceIdOf('w1'), workspaceIdOf('w2')];
    const stt = provider();
    const first = await open(stt, { callId: 'call-1', workspaceId: W1 });
    await open(stt, { callId: 'call-2', workspaceId: W1 });
    await open(stt, { callId: 'call-3', workspaceId: W2 });
    expect([stt.openSessions(), stt.openSessions(W1), stt.openSessions(W2)]).toEqual([3, 2, 1]);
    feed(first, spokenWords([4]));
    const pending = expect(first.commit()).rejects.toMatchObject({ kind: 'aborted' });
    // The call's media came back: its new stream replaces the old one.
    const again = await open(stt, { callId: 'call-1', workspaceId: W1 });
    await pending;
    expect(stt.openSessions(W1)).toBe(2);
    expect(await sample(metrics, 'cap_stt_realtime_sessions')).toBe(3);
    again.close();
    again.close();
    await waitFor(async () => (server.connections[3].closed ? true : undefined));
    expect(stt.openSessions()).toBe(2);
    expect(await sample(metrics, 'cap_stt_realtime_sessions')).toBe(2);
    // A stream closed on purpose, its pending commit aborted, is no failure.
    expect(await metrics.scrape()).not.toMatch(/^cap_stt_errors_total\{/m);
  });

  it('closes when the signal aborts', async () => {
    const ctrl = new AbortController();
    const stream = await provider().openStream({ sampleRate: 8000, signal: ctrl.signal });
    ctrl.abort();
    await expect(stream.commit()).rejects.toBeInstanceOf(SpeechError);
    await waitFor(async () => (server.connections[0].closed ? true : undefined));
    await expect(provider().openStream({ sampleRate: 8000, signal: ctrl.signal })).rejects.toMatchObject({
      kind: 'aborted',
    });
  });
});

describe('sttModeOf', () => {
  it("takes the agent's settings.voice.stt_mode when valid, else the configured mode", () => {
    expect(sttModeOf({ stt_mode: 'realtime' }, 'batch')).toBe('realtime');
    expect(sttModeOf({ stt_mode: 'batch' }, 'realtime')).toBe('batch');
    for (const voice of [{ stt_mode: 'fast' }, { stt_mode: 1 }, {}, null, undefined, 'x'])
      expect(sttModeOf(voice, 'realtime')).toBe('realtime');
  });
});

describe('PcmResampler', () => {
  it('makes 24 kHz of 8 kHz and 16 kHz audio, the same in pieces as at once', () => {
    const input = Int16Array.from({ length: 480 }, (_, i) => Math.round(8000 * Math.sin(i / 7)));
    for (const rate of [8000, 16000] as const) {
      const whole = new PcmResampler(rate).push(input);
      expect(whole.length / 2).toBe((input.length * 24000) / rate);
      const pieces = new PcmResampler(rate);
      const chunks = [0, 1, 37, 160, 161, 480].map((to, i, all) =>
        pieces.push(input.subarray(all[i - 1] ?? 0, to)),
      );
      expect(Buffer.concat(chunks)).toEqual(whole);
    }
  });

  it('keeps a level held and goes between two levels in a line', () => {
    const out = new PcmResampler(8000).push(Int16Array.from([3000, 3000, 6000]));
    expect(Array.from({ length: out.length / 2 }, (_, i) => out.readInt16LE(i * 2))).toEqual([
      3000, 3000, 3000, 3000, 3000, 3000, 3000, 4000, 5000,
    ]);
  });
});
