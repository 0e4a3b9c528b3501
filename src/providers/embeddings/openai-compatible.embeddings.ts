import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { Embeddings, EmbeddingsError } from './embeddings.port';

export const EMBEDDINGS_TIMEOUT_MS = 20_000;

/** Any OpenAI-compatible embeddings endpoint (`POST {EMBEDDINGS_BASE_URL}/embeddings`, operator config). */
@Injectable()
export class OpenAiCompatibleEmbeddings implements Embeddings {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get model(): string {
    return this.config.embeddings.model;
  }

  isConfigured(): boolean {
    return !!this.config.embeddings.baseUrl;
  }

  async embed(texts: string[]): Promise<number[][]> {
    const base = this.config.embeddings.baseUrl?.replace(/\/+$/, '');
    if (!base) throw new EmbeddingsError('not_configured', 'No embeddings model is configured');
    if (!texts.length) return [];
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (this.config.embeddings.apiKey) headers.authorization = `Bearer ${this.config.embeddings.apiKey}`;
    let res: Response;
    try {
      res = await fetch(`${base}/embeddings`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.model, input: texts }),
        signal: AbortSignal.timeout(EMBEDDINGS_TIMEOUT_MS),
        redirect: 'error',
      });
    } catch (err) {
      const name = (err as Error).name;
      if (name === 'TimeoutError' || name === 'AbortError')
        throw new EmbeddingsError('timeout', `Embeddings did not answer within ${EMBEDDINGS_TIMEOUT_MS} ms`);
      throw new EmbeddingsError('network', `Embeddings unreachable: ${(err as Error).message}`);
    }
    const text = await res.text().catch(() => '');
    if (!res.ok) throw new EmbeddingsError('http', `Embeddings answered HTTP ${res.status}`);
    let body: { data?: { embedding?: unknown; index?: unknown }[] };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new EmbeddingsError('invalid_response', 'Embeddings answer is not JSON');
    }
    const data = Array.isArray(body.data) ? body.data : [];
    const out: (number[] | undefined)[] = texts.map(() => undefined);
    data.forEach((d, i) => {
      const at = typeof d.index === 'number' ? d.index : i;
      const ok =
        Array.isArray(d.embedding) && d.embedding.every((x) => typeof x === 'number' && Number.isFinite(x));
      if (ok && at >= 0 && at < out.length) out[at] = unit(d.embedding as number[]);
    });
    const dims = out[0]?.length;
    // Every input needs a vector, all of one (non-zero) size.
    if (!dims || out.some((v) => v?.length !== dims))
      throw new EmbeddingsError('invalid_response', 'Embeddings answer lacks a vector for every input');
    return out as number[][];
  }
}

/** Unit length, so that a dot product is the cosine similarity. */
function unit(v: number[]): number[] {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}
