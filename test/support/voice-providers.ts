import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { CorpusEar } from './corpus-ear';
import { CommitRecord, ConnectionPlan, RealtimeSttServer } from './realtime-stt-server';
import { tonePcm24k } from './speech-server';
import type { Recognition, VoiceCorpus } from './voice-providers-corpus';

/** How fast each provider answers: speech to text, the model, text to speech. */
export interface VoiceProfile {
  name: string;
  /** Transcription answers after `baseMs` + `perAudioSecondMs` for each second of audio sent. */
  stt: { baseMs: number; perAudioSecondMs: number };
  /** The first token after `firstTokenMs`, then `tokensPerSecond`. */
  model: { firstTokenMs: number; tokensPerSecond: number };
  /** The first PCM bytes after `firstByteMs`, the rest streamed `realTime` times faster than it plays. */
  tts: { firstByteMs: number; realTime: number };
  /**
   * Streaming speech to text (the realtime server, for agents with `stt_mode: "realtime"`): the words heard so far
   * every `deltaEveryMs` of audio, the final words `finalMs` after a commit (default 100 and 150).
   */
  realtimeStt?: { deltaEveryMs: number; finalMs: number };
}

export const GOOD_CLOUD: VoiceProfile = {
  name: 'good cloud',
  stt: { baseMs: 150, perAudioSecondMs: 100 },
  model: { firstTokenMs: 350, tokensPerSecond: 40 },
  tts: { firstByteMs: 150, realTime: 5 },
};

/** The good cloud with streaming speech to text. */
export const STREAMING: VoiceProfile = {
  ...GOOD_CLOUD,
  name: 'streaming',
  realtimeStt: { deltaEveryMs: 100, finalMs: 150 },
};

export const SELF_HOSTED_CPU: VoiceProfile = {
  name: 'self-hosted CPU',
  stt: { baseMs: 400, perAudioSecondMs: 300 },
  model: { firstTokenMs: 600, tokensPerSecond: 20 },
  tts: { firstByteMs: 400, realTime: 2 },
};

/**
 * Instants are performance.now() of this process; `aborted` when the client went away before the answer ended.
 * `realtime`: a commit of a stream (at: the commit, answeredAt: its final words sent), else a batch request.
 */
export interface SttRecord extends Recognition {
  at: number;
  answeredAt: number;
  fields: Record<string, string>;
  aborted: boolean;
  realtime: boolean;
}

export interface ChatMessage {
  role: string;
  content: string | null;
  tool_calls?: unknown[];
}

export interface ChatRecord {
  at: number;
  firstTokenAt: number;
  doneAt: number;
  stream: boolean;
  model: string;
  messages: ChatMessage[];
  /** The last user message's text. */
  lastUser: string;
  tools: unknown[] | undefined;
  reply: ChatReply;
  aborted: boolean;
}

export interface ChatReply {
  content?: string;
  toolCalls?: { name: string; arguments: unknown }[];
}

export interface TtsRecord {
  at: number;
  firstByteAt: number;
  doneAt: number;
  input: string;
  voice: string;
  responseFormat: string;
  speed: number;
  audioMs: number;
  aborted: boolean;
}

/** A reply's tokens as a model streams them: pieces of up to four characters with their leading space. */
export function tokens(text: string): string[] {
  return text.match(/\s*\S{1,4}/g) ?? [];
}

/** JSON requests (classification, evaluation, memory) get `{}`; conversation turns a short sentence. */
export function defaultReply(request: { json: boolean }): ChatReply {
  return { content: request.json ? '{}' : 'Sure, let me look into that for you.' };
}

const sleepUntil = (at: number) => new Promise((r) => setTimeout(r, Math.max(0, at - performance.now())));

/**
 * Local OpenAI-compatible speech and model providers on one HTTP server (`{url}/audio/transcriptions`,
 * `/chat/completions`, `/audio/speech`) answering at the latencies of a profile, for latency measurements:
 * - STT answers the corpus words of the audio it receives (see VoiceCorpus.recognize) after base + per second;
 * - its realtime server (`realtime`, at `realtimeUrl`) hears them as they are streamed (CorpusEar), at the profile's
 *   `realtimeStt` pace; each commit is recorded with the batch requests (`realtime` true). A test's plan for its
 *   connections (`listen`) adds to that (drops, refusals);
 * - chat streams Server-Sent Events after the first-token latency at the profile's token rate (non-streamed: one
 *   answer, with tool calls when the reply has them, once every token is generated);
 * - TTS streams 24 kHz 16-bit PCM (`response_format: pcm`) in 100 ms chunks at `realTime` × real time after its
 *   first-byte latency, `msPerChar` of audio per character of input.
 * Every request is recorded with its instants; a client that goes away mid-answer is marked `aborted`.
 */
export class VoiceProviders {
  profile: VoiceProfile;
  reply: (request: { json: boolean; lastUser: string; record: ChatRecord }) => ChatReply = defaultReply;
  msPerChar = 60;
  readonly stt: SttRecord[] = [];
  readonly chat: ChatRecord[] = [];
  readonly tts: TtsRecord[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly corpus: VoiceCorpus,
    profile: VoiceProfile,
    readonly realtime: RealtimeSttServer,
  ) {
    this.profile = profile;
    realtime.onCommit = (c) => this.stt.push(this.recordOf(c));
    this.listen();
  }

  static async start(corpus: VoiceCorpus, profile: VoiceProfile = GOOD_CLOUD): Promise<VoiceProviders> {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const realtime = await RealtimeSttServer.start();
    const self = new VoiceProviders(server, `http://127.0.0.1:${port}/v1`, corpus, profile, realtime);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      self.handle(req, res).catch((err: Error) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: err.message } }));
      });
    });
    return self;
  }

  /** The realtime server's address (STT_REALTIME_URL). */
  get realtimeUrl(): string {
    return this.realtime.url;
  }

  /**
   * How the realtime server's connections go: each hears the corpus at the profile's pace, with what `plan` adds
   * for connection `n` (a drop, a refusal, other final words).
   */
  listen(plan: (n: number) => ConnectionPlan = () => ({})): void {
    this.realtime.plan = (n) => {
      const pace = this.profile.realtimeStt ?? { deltaEveryMs: 100, finalMs: 150 };
      return {
        ear: () => new CorpusEar(this.corpus, pace.deltaEveryMs),
        completeLatencyMs: pace.finalMs,
        ...plan(n),
      };
    };
  }

  reset(): void {
    this.stt.length = 0;
    this.chat.length = 0;
    this.tts.length = 0;
    this.realtime.reset();
    this.listen();
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
    await this.realtime.close();
  }

  /** A stream's commit as a transcription record (the same object: its answer instant filled in when sent). */
  private recordOf(c: CommitRecord): SttRecord {
    const heard = c.ear instanceof CorpusEar ? c.ear.heard : [];
    return Object.assign(c, { heard, fields: {}, realtime: true });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = performance.now();
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const route = `${req.method} ${req.url}`;
    if (route === 'POST /v1/audio/transcriptions') return this.transcribe(req, res, body, at);
    if (route === 'POST /v1/chat/completions') return this.complete(res, body, at);
    if (route === 'POST /v1/audio/speech') return this.speak(res, body, at);
    fail(res, 404, `no route ${route}`);
  }

  private async transcribe(
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    at: number,
  ): Promise<void> {
    const form = await new Response(body, {
      headers: { 'content-type': req.headers['content-type'] ?? '' },
    })
      .formData()
      .catch(() => null);
    const file = form?.get('file');
    if (!form || !file || typeof file === 'string') return fail(res, 400, 'file is required (multipart)');
    const fields: Record<string, string> = {};
    for (const [name, value] of form.entries()) if (typeof value === 'string') fields[name] = value;
    const recognized = this.corpus.recognize(Buffer.from(await file.arrayBuffer()));
    const record: SttRecord = { ...recognized, at, answeredAt: 0, fields, aborted: false, realtime: false };
    this.stt.push(record);
    watch(res, record);
    const { baseMs, perAudioSecondMs } = this.profile.stt;
    await sleepUntil(at + baseMs + (perAudioSecondMs * recognized.audioMs) / 1000);
    record.answeredAt = performance.now();
    const seconds = recognized.audioMs / 1000;
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        task: 'transcribe',
        language: fields.language || 'en',
        duration: seconds,
        text: recognized.text,
        segments: recognized.text ? [{ id: 0, start: 0, end: seconds, text: ` ${recognized.text}` }] : [],
      }),
    );
  }

  private async complete(res: ServerResponse, raw: Buffer, at: number): Promise<void> {
    let body: {
      model?: string;
      messages?: ChatMessage[];
      stream?: boolean;
      tools?: unknown[];
      response_format?: { type?: string };
    };
    try {
      body = JSON.parse(raw.toString()) as typeof body;
    } catch {
      return fail(res, 400, 'body is not JSON');
    }
    if (!Array.isArray(body.messages)) return fail(res, 400, 'messages is required');
    const lastUser = [...body.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    const record: ChatRecord = {
      at,
      firstTokenAt: 0,
      doneAt: 0,
      stream: body.stream === true,
      model: body.model ?? '',
      messages: body.messages,
      lastUser: typeof lastUser === 'string' ? lastUser : '',
      tools: body.tools,
      reply: {},
      aborted: false,
    };
    this.chat.push(record);
    watch(res, record);
    const reply = this.reply({
      json: body.response_format?.type === 'json_object',
      lastUser: record.lastUser,
      record,
    });
    record.reply = reply;
    const pieces = tokens(reply.content ?? '');
    const { firstTokenMs, tokensPerSecond } = this.profile.model;
    const tokenAt = (i: number) => at + firstTokenMs + (i * 1000) / tokensPerSecond;
    const id = `chatcmpl-${this.chat.length}`;
    const toolCalls = reply.toolCalls?.map((c, i) => ({
      index: i,
      id: `call_${this.chat.length}_${i}`,
      type: 'function',
      function: {
        name: c.name,
        arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
      },
    }));
    const finish = toolCalls ? 'tool_calls' : 'stop';
    if (!record.stream) {
      await sleepUntil(tokenAt(Math.max(0, pieces.length - 1)));
      record.firstTokenAt = record.doneAt = performance.now();
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          model: record.model,
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: reply.content ?? null,
                ...(toolCalls ? { tool_calls: toolCalls } : {}),
              },
              finish_reason: finish,
            },
          ],
          usage: { prompt_tokens: 10, completion_tokens: pieces.length, total_tokens: 10 + pieces.length },
        }),
      );
      return;
    }
    const event = (delta: Record<string, unknown>, finishReason: string | null = null) =>
      `data: ${JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        model: record.model,
        choices: [{ index: 0, delta, finish_reason: finishReason }],
      })}\n\n`;
    await sleepUntil(tokenAt(0));
    if (record.aborted) return;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(event({ role: 'assistant', content: '' }));
    for (let i = 0; i < pieces.length; i++) {
      await sleepUntil(tokenAt(i));
      if (record.aborted) return;
      res.write(event({ content: pieces[i] }));
      if (!record.firstTokenAt) record.firstTokenAt = performance.now();
    }
    if (toolCalls) res.write(event({ tool_calls: toolCalls }));
    res.write(event({}, finish));
    record.doneAt = performance.now();
    if (!record.firstTokenAt) record.firstTokenAt = record.doneAt;
    res.end('data: [DONE]\n\n');
  }

  private async speak(res: ServerResponse, raw: Buffer, at: number): Promise<void> {
    let body: { input?: unknown; voice?: unknown; response_format?: unknown; speed?: unknown };
    try {
      body = JSON.parse(raw.toString()) as typeof body;
    } catch {
      return fail(res, 400, 'body is not JSON');
    }
    if (typeof body.input !== 'string' || !body.input) return fail(res, 400, 'input is required');
    const format = typeof body.response_format === 'string' ? body.response_format : 'mp3';
    if (format !== 'pcm') return fail(res, 400, `response_format ${format} is not served here (pcm only)`);
    const speed = typeof body.speed === 'number' && body.speed > 0 ? body.speed : 1;
    const audioMs = Math.max(300, Math.round((body.input.length * this.msPerChar) / speed));
    const record: TtsRecord = {
      at,
      firstByteAt: 0,
      doneAt: 0,
      input: body.input,
      voice: typeof body.voice === 'string' ? body.voice : '',
      responseFormat: format,
      speed,
      audioMs,
      aborted: false,
    };
    this.tts.push(record);
    watch(res, record);
    const pcm = tonePcm24k(audioMs, 220 + (this.tts.length % 5) * 40, 6000);
    const chunkMs = 100;
    const chunkBytes = (24000 * 2 * chunkMs) / 1000;
    const { firstByteMs, realTime } = this.profile.tts;
    await sleepUntil(at + firstByteMs);
    if (record.aborted) return;
    res.writeHead(200, { 'content-type': 'audio/pcm', 'transfer-encoding': 'chunked' });
    for (let i = 0; i * chunkBytes < pcm.length; i++) {
      await sleepUntil(at + firstByteMs + (i * chunkMs) / realTime);
      if (record.aborted) return;
      res.write(pcm.subarray(i * chunkBytes, (i + 1) * chunkBytes));
      if (!record.firstByteAt) record.firstByteAt = performance.now();
    }
    record.doneAt = performance.now();
    res.end();
  }
}

function fail(res: ServerResponse, status: number, message: string): void {
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ error: { message, type: 'invalid_request_error' } }));
}

/** Marks the record aborted when the connection closes before the answer was written out. */
function watch(res: ServerResponse, record: { aborted: boolean }): void {
  res.on('close', () => {
    if (!res.writableFinished) record.aborted = true;
  });
}
