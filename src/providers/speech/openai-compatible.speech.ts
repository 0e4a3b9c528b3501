import { SpeechError, SpeechToText, TextToSpeech } from './speech.port';

const STT_TIMEOUT_MS = 30_000;
const TTS_TIMEOUT_MS = 30_000;

interface Endpoint {
  baseUrl: string;
  apiKey?: string;
  model: string;
}

function headers(apiKey?: string): Record<string, string> {
  return apiKey ? { authorization: `Bearer ${apiKey}` } : {};
}

async function post(url: string, init: RequestInit, timeoutMs: number): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, method: 'POST', signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new SpeechError(`speech service unreachable: ${(err as Error).message}`);
  }
  if (!res.ok) throw new SpeechError(`speech service answered HTTP ${res.status}`);
  return res;
}

/** OpenAI-compatible `POST {STT_BASE_URL}/audio/transcriptions` (multipart, `verbose_json`). */
export class OpenAiSpeechToText implements SpeechToText {
  readonly configured = true;

  constructor(private readonly endpoint: Endpoint) {}

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
    const res = await post(
      `${this.endpoint.baseUrl.replace(/\/+$/, '')}/audio/transcriptions`,
      { body: form, headers: headers(this.endpoint.apiKey) },
      STT_TIMEOUT_MS,
    );
    const body = (await res.json().catch(() => null)) as { text?: unknown } | null;
    if (!body || typeof body.text !== 'string')
      throw new SpeechError('speech service answered without a text');
    return body.text.trim();
  }
}

/** OpenAI-compatible `POST {TTS_BASE_URL}/audio/speech` answering 24 kHz 16-bit mono PCM. */
export class OpenAiTextToSpeech implements TextToSpeech {
  readonly configured = true;

  constructor(private readonly endpoint: Endpoint & { voice: string }) {}

  async synthesize(text: string, options: { voice?: string | null; speed?: number }): Promise<Buffer> {
    const res = await post(
      `${this.endpoint.baseUrl.replace(/\/+$/, '')}/audio/speech`,
      {
        body: JSON.stringify({
          model: this.endpoint.model,
          input: text,
          voice: options.voice || this.endpoint.voice,
          response_format: 'pcm',
          speed: options.speed ?? 1,
        }),
        headers: { ...headers(this.endpoint.apiKey), 'content-type': 'application/json' },
      },
      TTS_TIMEOUT_MS,
    );
    return Buffer.from(await res.arrayBuffer());
  }
}
