import { Module } from '@nestjs/common';
import { EMBEDDINGS } from './embeddings.port';
import { OpenAiCompatibleEmbeddings } from './openai-compatible.embeddings';

/** Provides the embeddings port (inject with `@Inject(EMBEDDINGS) embeddings: Embeddings`). */
@Module({
  providers: [OpenAiCompatibleEmbeddings, { provide: EMBEDDINGS, useExisting: OpenAiCompatibleEmbeddings }],
  exports: [EMBEDDINGS],
})
export class EmbeddingsModule {}
