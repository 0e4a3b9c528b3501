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
        config.stt.baseUrl
          ? new OpenAiTranscriptionAdapter(config.stt.baseUrl, config.stt.apiKey, config.stt.model)
          : new NoTranscription(),
    },
  ],
  exports: [TRANSCRIPTION],
})
export class TranscriptionModule {}
