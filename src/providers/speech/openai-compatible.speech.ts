import { wavLayout, wavSeconds } from '@/common/audio/wav';
import { reportUsage } from '@/providers/usage-report';
import { Traced, TracedSpec } from '@/common/telemetry/traced';
import { SpeechError, SpeechToText, SynthesisOptions, TextToSpeech } from './speech.port';

/** The longest the speech service may keep a request waiting: for its answer, and then between two pieces of it. */
export const SPEECH_TIMEOUT_MS = 30_000;
/** The most audio one synthesis may answer: 16 MiB, some 5.8 minutes of 24 kHz 16-bit PCM. */
export const MAX_SPEECH_BYTES = 16 * 1024 * 1024;

interface Endpoint {
  baseUrl: string;
  apiKey?: string;
  model: string;
}

export interface SpeechLimits {
  /** SPEECH_TIMEOUT_MS unless given. */
  timeoutMs?: number;
  /** MAX_SPEECH_BYTES unless given. */
  maxBytes?: number;
}

/**
 * Where the speech adapters count their failures (the process's Metrics): a SpeechError, or anything thrown. An
 * aborted request (the call cut the speech on purpose) is not a failure and is not counted.
 */
export interface SpeechErrorMetrics {
  observeSpeechError(service: 'stt', err: unknown, mode: 'batch' | 'realtime'): void;
  observeSpeechError(service: 'tts', err: unknown): void;
}

function headers(apiKey?: string): Record<string, string> {
  return apiKey ? { authorization: `Bearer ${apiKey}` } : {};
}

function endpointUrl(endpoint: Endpoint, path: string): string {
  return `${endpoint.baseUrl.replace(/\/+$/, '')}${path}`;
}

/**
 * One request to the speech service: each wait (the answer, then each piece of its body) has `timeoutMs`, the
 * caller's signal aborts it at once, and every failure is a SpeechError.
 */
class Exchange {
  private readonly ctrl = new AbortController();
  private timedOut = false;
  private readonly onAbort = () => this.ctrl.abort();

  constructor(
    private readonly timeoutMs: number,
    private readonly caller?: AbortSignal,
  ) {
    caller?.addEventListener('abort', this.onAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.ctrl.signal;
  }

  async wait<T>(step: () => Promise<T>, failure: string): Promise<T> {
    if (this.caller?.aborted) throw new SpeechError('speech request aborted', 'aborted');
    const timer = setTimeout(() => {
      this.timedOut = true;
      this.ctrl.abort();
    }, this.timeoutMs);
    try {
      return await step();
    } catch (err) {
      if (err instanceof SpeechError) throw err;
      if (this.caller?.aborted) throw new SpeechError('speech request aborted', 'aborted');
      if (this.timedOut)
        throw new SpeechError(`speech service did not answer within ${this.timeoutMs} ms`, 'timeout');
      throw new SpeechError(`speech service ${failure}: ${(err as Error).message}`, 'unreachable');
    } finally {
      clearTimeout(timer);
    }
  }

  /** POSTs; an error status is a SpeechError `http`. */
  async post(url: string, init: RequestInit): Promise<Response> {
    const res = await this.wait(
      () => fetch(url, { ...init, method: 'POST', signal: this.ctrl.signal }),
      'unreachable',
    );
    if (!res.ok) throw new SpeechError(`speech service answered HTTP ${res.status}`, 'http', res.status);
    return res;
  }

  /** Ends the request; a connection still open (an answer not read to its end) is closed. */
  close(): void {
    this.caller?.removeEventListener('abort', this.onAbort);
    this.ctrl.abort();
  }
}

/** The `text` and `duration` (seconds) of a transcription answer; text null when it has none (or is not JSON). */
function readAnswer(raw: string): { text: string | null; duration: number | null } {
  try {
    const body = JSON.parse(raw) as { text?: unknown; duration?: unknown } | null;
    const duration =
      typeof body?.duration === 'number' && Number.isFinite(body.duration) ? body.duration : null;
    return { text: typeof body?.text === 'string' ? body.text : null, duration };
  } catch {
    return { text: null, duration: null };
  }
}

/** Seconds of audio sent: a WAV file's own length, else (another container) what the service measured. */
function audioSeconds(file: Buffer, answered: number | null): number {
  const layout = wavLayout(file, file.length);
  return layout ? wavSeconds(layout) : Math.max(0, answered ?? 0);
}

type TranscribeArgs = [
  wav: Buffer,
  options: { language?: string | null; file?: { name: string; type: string } },
];

/** The `stt` span: the audio's size and language; the transcript's length (its words only when captured). */
const STT_SPAN: TracedSpec<TranscribeArgs, Promise<string>> = {
  attributes: (wav, options) => ({
    'stt.audio_bytes': wav.length,
    'stt.language': options.language,
    'stt.format': options.file?.type ?? 'audio/wav',
  }),
  result: (span, text) => {
    span.setAttribute('stt.chars', text.length);
    span.setContent('stt.text', text);
  },
};

/** The `tts` span: the text's length, the voice, when the first audio came (the text only when captured). */
const TTS_SPAN: TracedSpec<[text: string, options: SynthesisOptions], AsyncIterable<Buffer>> = {
  attributes: (text, options) => ({
    'tts.chars': [...text].length,
    'tts.voice': options.voice ?? undefined,
    'tts.speed': options.speed,
  }),
  item: (span, _chunk, index, started) => {
    if (index === 0) span.setAttribute('tts.first_audio_ms', Date.now() - started);
  },
  around: (span, _started, args) => {
    span.setContent('tts.text', args[0]);
    return args;
  },
};

/** OpenAI-compatible `POST {STT_BASE_URL}/audio/transcriptions` (multipart, `verbose_json`). */
export class OpenAiSpeechToText implements SpeechToText {
  readonly configured = true;

  constructor(
    private readonly endpoint: Endpoint,
    private readonly limits: SpeechLimits = {},
    private readonly metrics?: SpeechErrorMetrics,
  ) {}

  @Traced('stt', STT_SPAN)
  async transcribe(
    wav: Buffer,
    options: { language?: string | null; file?: { name: string; type: string } },
  ): Promise<string> {
    const file = options.file ?? { name: 'turn.wav', type: 'audio/wav' };
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(wav)], { type: file.type }), file.name);
    form.append('model', this.endpoint.model);
    form.append('response_format', 'verbose_json');
    if (options.language) form.append('language', options.language);
    const exchange = new Exchange(this.limits.timeoutMs ?? SPEECH_TIMEOUT_MS);
    try {
      const res = await exchange.post(endpointUrl(this.endpoint, '/audio/transcriptions'), {
        body: form,
        headers: headers(this.endpoint.apiKey),
      });
      const raw = await exchange.wait(() => res.text(), 'broke off');
      const { text, duration } = readAnswer(raw);
      if (text === null) throw new SpeechError('speech service answered without a text', 'invalid_response');
      reportUsage({ sttMs: Math.round(audioSeconds(wav, duration) * 1000) });
      return text.trim();
    } catch (err) {
      this.metrics?.observeSpeechError('stt', err, 'batch');
      throw err;
    } finally {
      exchange.close();
    }
  }
}

/**
 * OpenAI-compatible `POST {TTS_BASE_URL}/audio/speech` answering 24 kHz 16-bit mono PCM (`response_format: pcm`),
 * read as it arrives.
 */
export class OpenAiTextToSpeech implements TextToSpeech {
  readonly configured = true;

  constructor(
    private readonly endpoint: Endpoint & { voice: string },
    private readonly limits: SpeechLimits = {},
    private readonly metrics?: SpeechErrorMetrics,
  ) {}

  async synthesize(text: string, options: SynthesisOptions, signal?: AbortSignal): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of this.synthesizeStream(text, options, signal)) chunks.push(chunk);
    return Buffer.concat(chunks);
  }

  @Traced('tts', TTS_SPAN)
  async *synthesizeStream(
    text: string,
    options: SynthesisOptions,
    signal?: AbortSignal,
  ): AsyncIterable<Buffer> {
    const maxBytes = this.limits.maxBytes ?? MAX_SPEECH_BYTES;
    const tooLarge = () =>
      new SpeechError(`speech service answered more than ${maxBytes} bytes`, 'too_large');
    const exchange = new Exchange(this.limits.timeoutMs ?? SPEECH_TIMEOUT_MS, signal);
    try {
      const res = await exchange.post(endpointUrl(this.endpoint, '/audio/speech'), {
        body: JSON.stringify({
          model: this.endpoint.model,
          input: text,
          voice: options.voice || this.endpoint.voice,
          response_format: 'pcm',
          speed: options.speed ?? 1,
        }),
        headers: { ...headers(this.endpoint.apiKey), 'content-type': 'application/json' },
      });
      // Characters are what the service bills, answered in full or not: counted once it accepted them.
      reportUsage({ ttsCharacters: [...text].length });
      if (Number(res.headers.get('content-length')) > maxBytes) throw tooLarge();
      if (!res.body) return;
      const reader = res.body.getReader();
      let total = 0;
      // A 16-bit sample split across two pieces waits for its second byte.
      let carry: Buffer | null = null;
      for (;;) {
        const piece = await exchange.wait(() => reader.read(), 'broke off');
        if (piece.done) return;
        total += piece.value.byteLength;
        if (total > maxBytes) throw tooLarge();
        let chunk = Buffer.from(piece.value.buffer, piece.value.byteOffset, piece.value.byteLength);
        if (carry) chunk = Buffer.concat([carry, chunk]);
        carry = chunk.length % 2 ? Buffer.from(chunk.subarray(chunk.length - 1)) : null;
        if (carry) chunk = chunk.subarray(0, chunk.length - 1);
        if (chunk.length) yield chunk;
      }
    } catch (err) {
      this.metrics?.observeSpeechError('tts', err);
      throw err;
    } finally {
      exchange.close();
    }
  }
}
