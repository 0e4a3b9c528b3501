import { Module } from '@nestjs/common';
import { LANGUAGE_MODEL } from './language-model.port';
import { OpenAiCompatibleLanguageModel } from './openai-compatible.language-model';

/** Provides the language-model port (inject with `@Inject(LANGUAGE_MODEL) llm: LanguageModel`). */
@Module({
  providers: [
    OpenAiCompatibleLanguageModel,
    { provide: LANGUAGE_MODEL, useExisting: OpenAiCompatibleLanguageModel },
  ],
  exports: [LANGUAGE_MODEL],
})
export class LlmModule {}
