/** Why computing embeddings failed. */
export class EmbeddingsError extends Error {
  constructor(
    readonly kind: 'not_configured' | 'timeout' | 'network' | 'http' | 'invalid_response',
    message: string,
  ) {
    super(message);
  }
}

/** Text to vectors through a model (semantic retrieval); off unless configured. */
export interface Embeddings {
  /** Whether a model is configured (EMBEDDINGS_BASE_URL). */
  isConfigured(): boolean;
  /** The model's name, stored beside each vector so a change of model is noticed. */
  readonly model: string;
  /** One unit-length vector per text, in order. */
  embed(texts: string[]): Promise<number[][]>;
}

export const EMBEDDINGS = Symbol('EMBEDDINGS');
