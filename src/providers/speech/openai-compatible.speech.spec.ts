import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Metrics } from '@/common/metrics/metrics';
import { OpenAiSpeechToText, OpenAiTextToSpeech } from './openai-compatible.speech';
import { NoSpeech, SpeechError } from './speech.port';
import { runInUsageScope, UsageReport, withinUsageScope } from '../usage-report';

type Handler = (res: ServerResponse, req: IncomingMessage) => unknown;

interface Seen {
  url?: string;
  headers: IncomingMessage['headers'];
  body: any;
  /** Settles when the client went away or the answer ended; `early` when the client left first. */
  closed: Promise<{ early: boolean }>;
}

/** A local server speaking `/audio/speech` and `/audio/transcriptions`; each test sets how it answers. */
async function startServer(): Promise<{
  server: Server;
  base: string;
  on: (h: Handler) => void;
  seen: Seen[];
}> {
  let handler: Handler = () => undefined;
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString();
      const closed = new Promise<{ early: boolean }>((r) =>
        res.on('close', () => r({ early: !res.writableEnded })),
      );
      const json = req.headers['content-type'] === 'application/json';
      seen.push({ url: req.url, headers: req.headers, body: json ? JSON.parse(raw) : raw, closed });
      void handler(res, req);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { server, base: `http://127.0.0.1:${port}/v1`, on: (h) => (handler = h), seen };
}

/** Something that happens once: `fired` settles when `fire` is called. */
const event = () => {
  let fire!: () => void;
  const fired = new Promise<void>((r) => (fire = r));
  return { fire: () => fire(), fired };
};

/** `n` bytes of PCM, each byte its index: a split sample shows as a wrong sequence. */
const bytes = (n: number, from = 0) => Buffer.from(Array.from({ length: n }, (_, i) => (from + i) & 0xff));

const write = (res: ServerResponse, chunk: Buffer) => new Promise<void>((r) => res.write(chunk, () => r()));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const waitUntil = async (done: () => boolean) => {
  while (!done()) await sleep(5);
};

describe('OpenAiTextToSpeech', () => {
  let srv: Awaited<ReturnType<typeof startServer>>;
  const tts = (limits = {}) =>
    new OpenAiTextToSpeech(
      { baseUrl: `${srv.base}/`, apiKey: 'sk-tts', model: 'tts-test', voice: 'alloy' },
      limits,
    );

  beforeAll(async () => (srv = await startServer()));
  afterAll(() => {
    srv.server.closeAllConnections();
    return new Promise((r) => srv.server.close(r));
  });
  beforeEach(() => (srv.seen.length = 0));

  it('yields whole samples as they arrive, the first before the server finished', async () => {
    const release = event();
    let finished = false;
    const sent = bytes(24_001); // odd: the last byte is half a sample
    srv.on(async (res) => {
      res.writeHead(200, { 'content-type': 'audio/pcm' });
      await write(res, sent.subarray(0, 3));
      await release.fired;
      for (let i = 3; i < sent.length; i += 4_999) {
        await sleep(5);
        await write(res, sent.subarray(i, i + 4_999));
      }
      finished = true;
      res.end();
    });
    const got: Buffer[] = [];
    for await (const chunk of tts().synthesizeStream('Hello there.', { voice: 'nova', speed: 1.2 })) {
      if (!got.length) {
        expect(finished).toBe(false);
        expect(chunk).toEqual(sent.subarray(0, 2));
        release.fire();
      }
      got.push(chunk);
    }
    expect(got.length).toBeGreaterThan(2);
    expect(got.every((c) => c.length > 0 && c.length % 2 === 0)).toBe(true);
    expect(Buffer.concat(got).equals(sent.subarray(0, 24_000))).toBe(true);
    expect(srv.seen[0]).toMatchObject({
      url: '/v1/audio/speech',
      headers: { authorization: 'Bearer sk-tts' },
      body: { model: 'tts-test', input: 'Hello there.', voice: 'nova', response_format: 'pcm', speed: 1.2 },
    });
  });

  it('answers the whole audio from synthesize, in whole samples', async () => {
    srv.on(async (res) => {
      res.writeHead(200, { 'content-type': 'audio/pcm' });
      for (const n of [1, 6, 1, 3]) await write(res, bytes(n));
      res.end();
    });
    const pcm = await tts().synthesize('Hi', {});
    expect(pcm).toEqual(Buffer.concat([bytes(1), bytes(6), bytes(1), bytes(3)]).subarray(0, 10));
    expect(srv.seen[0].body).toMatchObject({ voice: 'alloy', response_format: 'pcm', speed: 1 });
  });

  it('closes the connection at once when the signal aborts mid-stream, and throws aborted', async () => {
    srv.on(async (res) => {
      res.writeHead(200, { 'content-type': 'audio/pcm' });
      await write(res, bytes(4_800));
      // ... and never ends.
    });
    const abort = new AbortController();
    const stream = tts().synthesizeStream('A long answer.', {}, abort.signal);
    let err: unknown;
    try {
      for await (const _chunk of stream) abort.abort();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SpeechError);
    expect(err).toMatchObject({ kind: 'aborted', message: 'speech request aborted' });
    await expect(srv.seen[0].closed).resolves.toEqual({ early: true });
  });

  it('closes the connection when the reader leaves the stream early', async () => {
    srv.on(async (res) => {
      res.writeHead(200, { 'content-type': 'audio/pcm' });
      await write(res, bytes(4_800));
    });
    for await (const _chunk of tts().synthesizeStream('A long answer.', {})) break;
    await expect(srv.seen[0].closed).resolves.toEqual({ early: true });
  });

  it('sends nothing when the signal aborted before', async () => {
    const abort = new AbortController();
    abort.abort();
    await expect(tts().synthesize('Hi', {}, abort.signal)).rejects.toMatchObject({ kind: 'aborted' });
    expect(srv.seen).toHaveLength(0);
  });

  it('maps an HTTP error to the same SpeechError for the stream and the whole audio', async () => {
    srv.on((res) => res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"busy"}'));
    const whole = await tts()
      .synthesize('Hi', {})
      .catch((e: unknown) => e);
    const streamed = await (async () => {
      for await (const _chunk of tts().synthesizeStream('Hi', {})) return null;
    })().catch((e: unknown) => e);
    expect(whole).toBeInstanceOf(SpeechError);
    expect(whole).toMatchObject({ kind: 'http', status: 503, message: 'speech service answered HTTP 503' });
    expect(streamed).toEqual(whole);
    expect(streamed).toMatchObject({ kind: 'http', status: 503 });
  });

  it('refuses an answer larger than the bound, announced or streamed, and closes the connection', async () => {
    srv.on((res) => res.writeHead(200, { 'content-length': '5000' }).end(bytes(5000)));
    await expect(tts({ maxBytes: 4096 }).synthesize('Hi', {})).rejects.toMatchObject({
      kind: 'too_large',
      message: 'speech service answered more than 4096 bytes',
    });
    srv.on(async (res) => {
      res.writeHead(200, { 'content-type': 'audio/pcm' });
      for (;;) {
        if (res.destroyed) return;
        await write(res, bytes(1000));
        await sleep(2);
      }
    });
    const got: Buffer[] = [];
    const err = await (async () => {
      for await (const chunk of tts({ maxBytes: 4096 }).synthesizeStream('Hi', {})) got.push(chunk);
    })().catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'too_large' });
    expect(Buffer.concat(got).length).toBeLessThanOrEqual(4096);
    await expect(srv.seen[1].closed).resolves.toEqual({ early: true });
  });

  it('gives up on a server that stops sending', async () => {
    srv.on(async (res) => {
      res.writeHead(200, { 'content-type': 'audio/pcm' });
      await write(res, bytes(10));
    });
    await expect(tts({ timeoutMs: 150 }).synthesize('Hi', {})).rejects.toMatchObject({
      kind: 'timeout',
      message: 'speech service did not answer within 150 ms',
    });
    await expect(srv.seen[0].closed).resolves.toEqual({ early: true });
  });

  it('reports an unreachable service', async () => {
    const gone = new OpenAiTextToSpeech({ baseUrl: 'http://127.0.0.1:1/v1', model: 'm', voice: 'v' });
    await expect(gone.synthesize('Hi', {})).rejects.toMatchObject({
      kind: 'unreachable',
      message: expect.stringMatching(/^speech service unreachable: /),
    });
  });
});

describe('OpenAiSpeechToText', () => {
  let srv: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => (srv = await startServer()));
  afterAll(() => new Promise((r) => srv.server.close(r)));

  it('answers the text, and an answer without one as invalid', async () => {
    const stt = new OpenAiSpeechToText({ baseUrl: srv.base, model: 'whisper' });
    srv.on((res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"text":" hello "}'));
    await expect(stt.transcribe(Buffer.alloc(44), { language: 'en' })).resolves.toBe('hello');
    expect(srv.seen[0].body).toContain('name="language"\r\n\r\nen');
    srv.on((res) => res.writeHead(200).end('not json'));
    await expect(stt.transcribe(Buffer.alloc(44), {})).rejects.toMatchObject({ kind: 'invalid_response' });
  });

  it("reports the audio sent: a WAV file's own length, another container's as the service measured it", async () => {
    const stt = new OpenAiSpeechToText({ baseUrl: srv.base, model: 'whisper' });
    srv.on((res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"text":"hi","duration":2.5}'),
    );
    // 1.5 s of 8 kHz 16-bit mono PCM.
    const header = Buffer.alloc(44);
    header.write('RIFF', 0, 'latin1');
    header.writeUInt32LE(36 + 24_000, 4);
    header.write('WAVEfmt ', 8, 'latin1');
    header.writeUInt32LE(16, 16);
    header.writeUInt16LE(1, 20);
    header.writeUInt16LE(1, 22);
    header.writeUInt32LE(8000, 24);
    header.writeUInt32LE(16_000, 28);
    header.writeUInt16LE(2, 32);
    header.writeUInt16LE(16, 34);
    header.write('data', 36, 'latin1');
    header.writeUInt32LE(24_000, 40);
    const reports: UsageReport[] = [];
    await runInUsageScope({ report: (u) => reports.push(u) }, async () => {
      await stt.transcribe(Buffer.concat([header, Buffer.alloc(24_000)]), {});
      await stt.transcribe(Buffer.from('OggS not a wav'), { file: { name: 'note.ogg', type: 'audio/ogg' } });
    });
    expect(reports).toEqual([{ sttMs: 1500 }, { sttMs: 2500 }]);
    // Outside any scope nothing is reported, and nothing fails.
    await expect(stt.transcribe(Buffer.alloc(44), {})).resolves.toBe('hi');
  });
});

describe('usage of text to speech', () => {
  let srv: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => (srv = await startServer()));
  afterAll(() => new Promise((r) => srv.server.close(r)));

  it('reports the characters sent once the service took them, streamed or whole, through a scoped port', async () => {
    srv.on((res) => res.writeHead(200, { 'content-type': 'audio/pcm' }).end(bytes(8)));
    const reports: UsageReport[] = [];
    const tts = withinUsageScope(
      new OpenAiTextToSpeech({ baseUrl: srv.base, model: 'tts', voice: 'alloy' }),
      { report: (u) => reports.push(u) },
    );
    expect(tts.configured).toBe(true);
    await tts.synthesize('Héllo 👋', {});
    // The stream is stepped far from the scope (as a media session does): each step still reports to it.
    const chunks: Buffer[] = [];
    for await (const c of tts.synthesizeStream('Bye.', {})) chunks.push(c);
    expect(Buffer.concat(chunks)).toEqual(bytes(8));
    expect(reports).toEqual([{ ttsCharacters: 7 }, { ttsCharacters: 4 }]);
    srv.on((res) => res.writeHead(500).end());
    await expect(tts.synthesize('not taken', {})).rejects.toMatchObject({ kind: 'http' });
    expect(reports).toHaveLength(2);
  });
});

describe('speech failures in the metrics', () => {
  let srv: Awaited<ReturnType<typeof startServer>>;
  let metrics: Metrics;
  const tts = (limits = {}) =>
    new OpenAiTextToSpeech({ baseUrl: srv.base, model: 'tts', voice: 'alloy' }, limits, metrics);
  const stt = (limits = {}) =>
    new OpenAiSpeechToText({ baseUrl: srv.base, model: 'whisper' }, limits, metrics);
  /** Every sample of the speech error counters, by series, as /metrics answers them. */
  const errors = async () =>
    Object.fromEntries(
      (await metrics.scrape())
        .split('\n')
        .filter((l) => /^cap_(stt|tts)_errors_total\{/.test(l))
        .map((l) => [l.slice(0, l.lastIndexOf(' ')), Number(l.slice(l.lastIndexOf(' ') + 1))]),
    );
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: unknown) => e,
    );

  beforeAll(async () => (srv = await startServer()));
  afterAll(() => {
    srv.server.closeAllConnections();
    return new Promise((r) => srv.server.close(r));
  });
  beforeEach(() => {
    metrics = new Metrics();
    srv.seen.length = 0;
  });

  it('counts each failed synthesis once by kind, an HTTP error by its status class', async () => {
    srv.on((res) => res.writeHead(503).end('busy'));
    await expect(tts().synthesize('Hi', {})).rejects.toMatchObject({ kind: 'http', status: 503 });
    srv.on((res) => res.writeHead(429).end('slow down'));
    await expect(tts().synthesize('Hi', {})).rejects.toMatchObject({ kind: 'http', status: 429 });
    await expect(tts().synthesize('Hi', {})).rejects.toMatchObject({ kind: 'http', status: 429 });
    srv.on((res) => res.writeHead(200, { 'content-length': '5000' }).end(bytes(5000)));
    await expect(tts({ maxBytes: 4096 }).synthesize('Hi', {})).rejects.toMatchObject({ kind: 'too_large' });
    srv.on(async (res) => {
      res.writeHead(200, { 'content-type': 'audio/pcm' });
      await write(res, bytes(10));
    });
    await expect(tts({ timeoutMs: 150 }).synthesize('Hi', {})).rejects.toMatchObject({ kind: 'timeout' });
    const gone = new OpenAiTextToSpeech(
      { baseUrl: 'http://127.0.0.1:1/v1', model: 'm', voice: 'v' },
      {},
      metrics,
    );
    await expect(gone.synthesize('Hi', {})).rejects.toMatchObject({ kind: 'unreachable' });
    expect(await errors()).toEqual({
      'cap_tts_errors_total{kind="http_5xx"}': 1,
      'cap_tts_errors_total{kind="http_4xx"}': 2,
      'cap_tts_errors_total{kind="too_large"}': 1,
      'cap_tts_errors_total{kind="timeout"}': 1,
      'cap_tts_errors_total{kind="unreachable"}': 1,
    });
  });

  it('does not count a synthesis the caller aborted, mid-stream or before, nor one the reader left early', async () => {
    srv.on(async (res) => {
      res.writeHead(200, { 'content-type': 'audio/pcm' });
      await write(res, bytes(4_800));
      // ... and never ends.
    });
    const abort = new AbortController();
    const err = await failure(
      (async () => {
        for await (const _chunk of tts().synthesizeStream('A long answer.', {}, abort.signal)) abort.abort();
      })(),
    );
    expect(err).toMatchObject({ kind: 'aborted' });
    await expect(srv.seen[0].closed).resolves.toEqual({ early: true });
    const waiting = new AbortController();
    srv.on(() => undefined); // no answer at all: aborted while waiting for it
    const pending = failure(tts().synthesize('Hi', {}, waiting.signal));
    await waitUntil(() => srv.seen.length >= 2);
    waiting.abort();
    expect(await pending).toMatchObject({ kind: 'aborted' });
    await expect(tts().synthesize('Hi', {}, waiting.signal)).rejects.toMatchObject({ kind: 'aborted' });
    srv.on(async (res) => {
      res.writeHead(200, { 'content-type': 'audio/pcm' });
      await write(res, bytes(4_800));
    });
    for await (const _chunk of tts().synthesizeStream('A long answer.', {})) break;
    expect(await errors()).toEqual({});
    expect(await metrics.scrape()).toContain('# TYPE cap_tts_errors_total counter');
  });

  it('counts each failed transcription once, with mode batch', async () => {
    srv.on((res) => res.writeHead(500).end());
    await expect(stt().transcribe(Buffer.alloc(44), {})).rejects.toMatchObject({ kind: 'http', status: 500 });
    srv.on((res) => res.writeHead(401).end());
    await expect(stt().transcribe(Buffer.alloc(44), {})).rejects.toMatchObject({ kind: 'http', status: 401 });
    srv.on((res) => res.writeHead(200).end('not json'));
    await expect(stt().transcribe(Buffer.alloc(44), {})).rejects.toMatchObject({ kind: 'invalid_response' });
    srv.on(() => undefined);
    await expect(stt({ timeoutMs: 150 }).transcribe(Buffer.alloc(44), {})).rejects.toMatchObject({
      kind: 'timeout',
    });
    srv.on((res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"text":"fine"}'));
    await expect(stt().transcribe(Buffer.alloc(44), {})).resolves.toBe('fine');
    expect(await errors()).toEqual({
      'cap_stt_errors_total{mode="batch",kind="http_5xx"}': 1,
      'cap_stt_errors_total{mode="batch",kind="http_4xx"}': 1,
      'cap_stt_errors_total{mode="batch",kind="invalid_response"}': 1,
      'cap_stt_errors_total{mode="batch",kind="timeout"}': 1,
    });
  });
});

describe('NoSpeech', () => {
  it('fails every use as not configured, the stream too', async () => {
    const none = new NoSpeech();
    await expect(none.synthesize()).rejects.toMatchObject({ kind: 'not_configured' });
    await expect(none.synthesizeStream()[Symbol.asyncIterator]().next()).rejects.toMatchObject({
      kind: 'not_configured',
      message: 'Speech services are not configured',
    });
  });
});
