import * as fs from 'node:fs';
import { reportUsage } from '@/providers/usage-report';
import {
  SpeechSegment,
  TimedTranscript,
  TranscribeOptions,
  TranscriptionError,
  TranscriptionPort,
} from './transcription.port';

export const TRANSCRIPTION_MODEL = 'whisper-1';

interface VerboseBody {
  text?: unknown;
  language?: unknown;
  duration?: unknown;
  segments?: Array<{ start?: unknown; end?: unknown; text?: unknown }>;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * OpenAI-compatible `POST {base}/audio/transcriptions` (multipart `file`, `model`), configured by STT_BASE_URL,
 * STT_API_KEY and STT_MODEL (the language model's address and key when unset).
 */
export class OpenAiTranscriptionAdapter implements TranscriptionPort {
  readonly configured = true;
  readonly reason = '';

  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string | undefined,
    private readonly model = TRANSCRIPTION_MODEL,
    private readonly timeoutMs = 300_000,
  ) {}

  async transcribe(file: string, fileName: string): Promise<string> {
    const body = await this.post(file, fileName, { response_format: 'json' });
    if (typeof body.text !== 'string')
      throw new TranscriptionError('transcription service answered without a text');
    return body.text;
  }

  async transcribeTimed(
    file: string,
    fileName: string,
    options: TranscribeOptions = {},
  ): Promise<TimedTranscript> {
    const fields: Record<string, string> = {
      response_format: 'verbose_json',
      'timestamp_granularities[]': 'segment',
    };
    if (options.language) fields.language = options.language;
    if (options.prompt) fields.prompt = options.prompt;
    const body = await this.post(file, fileName, fields);
    if (typeof body.text !== 'string')
      throw new TranscriptionError('transcription service answered without a text');
    const segments: SpeechSegment[] = [];
    for (const s of Array.isArray(body.segments) ? body.segments : []) {
      const start = num(s.start);
      const end = num(s.end);
      if (start === null || end === null || typeof s.text !== 'string') continue;
      segments.push({ start, end, text: s.text.trim() });
    }
    // A service that ignores verbose_json still gives one segment covering the whole text.
    const duration = num(body.duration);
    if (duration !== null) reportUsage({ sttMs: Math.round(Math.max(0, duration) * 1000) });
    if (!segments.length && body.text.trim())
      segments.push({ start: 0, end: duration ?? 0, text: body.text.trim() });
    return {
      text: body.text.trim(),
      language: typeof body.language === 'string' ? body.language : null,
      duration,
      segments,
    };
  }

  private async post(file: string, fileName: string, fields: Record<string, string>): Promise<VerboseBody> {
    const form = new FormData();
    form.append('file', await fs.openAsBlob(file), fileName);
    form.append('model', this.model);
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    const headers: Record<string, string> = {};
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl.replace(/\/+$/, '')}/audio/transcriptions`, {
        method: 'POST',
        body: form,
        headers,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw new TranscriptionError(`transcription service unreachable: ${(err as Error).message}`, true);
    }
    if (!res.ok) {
      const transient = res.status === 408 || res.status === 429 || res.status >= 500;
      throw new TranscriptionError(`transcription service answered HTTP ${res.status}`, transient);
    }
    const body = (await res.json().catch(() => null)) as VerboseBody | null;
    if (!body) throw new TranscriptionError('transcription service answered without JSON', true);
    return body;
  }
}

/** The default with no configuration: every transcription fails with a clear reason. */
export class NoTranscription implements TranscriptionPort {
  readonly configured = false;
  readonly reason = 'no transcription service is configured (set STT_BASE_URL or LLM_BASE_URL)';

  transcribe(): Promise<string> {
    return Promise.reject(new TranscriptionError(this.reason));
  }

  transcribeTimed(): Promise<TimedTranscript> {
    return Promise.reject(new TranscriptionError(this.reason));
  }
}
