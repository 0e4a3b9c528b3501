import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { NoTranscription, OpenAiTranscriptionAdapter } from './openai-transcription.adapter';
import { TRANSCRIPTION, TranscriptionPort } from './transcription.port';

@Module({
  providers: [
    {
      provide: TRANSCRIPTION,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): TranscriptionPort =>
        config.llm.baseUrl
          ? new OpenAiTranscriptionAdapter(config.llm.baseUrl, config.llm.apiKey)
          : new NoTranscription(),
    },
  ],
  exports: [TRANSCRIPTION],
})
export class TranscriptionModule {}
