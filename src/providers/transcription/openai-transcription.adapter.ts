import * as fs from 'node:fs';
import { TranscriptionError, TranscriptionPort } from './transcription.port';

export const TRANSCRIPTION_MODEL = 'whisper-1';

/**
 * OpenAI-compatible `POST {base}/audio/transcriptions` (multipart `file`, `model`). The contract names no
 * variable of its own for it, so it uses the language model's LLM_BASE_URL and LLM_API_KEY.
 */
export class OpenAiTranscriptionAdapter implements TranscriptionPort {
  readonly configured = true;
  readonly reason = '';

  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string | undefined,
    private readonly timeoutMs = 300_000,
  ) {}

  async transcribe(file: string, fileName: string): Promise<string> {
    const form = new FormData();
    form.append('file', await fs.openAsBlob(file), fileName);
    form.append('model', TRANSCRIPTION_MODEL);
    form.append('response_format', 'json');
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
      throw new TranscriptionError(`transcription service unreachable: ${(err as Error).message}`);
    }
    if (!res.ok) throw new TranscriptionError(`transcription service answered HTTP ${res.status}`);
    const body = (await res.json().catch(() => null)) as { text?: unknown } | null;
    if (!body || typeof body.text !== 'string')
      throw new TranscriptionError('transcription service answered without a text');
    return body.text;
  }
}

/** The default with no configuration: every transcription fails with a clear reason. */
export class NoTranscription implements TranscriptionPort {
  readonly configured = false;
  readonly reason = 'no transcription service is configured (set LLM_BASE_URL and LLM_API_KEY)';

  transcribe(): Promise<string> {
    return Promise.reject(new TranscriptionError(this.reason));
  }
}
