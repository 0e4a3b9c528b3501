import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { OpenAiSpeechToText, OpenAiTextToSpeech } from './openai-compatible.speech';
import { NoSpeech, SPEECH_TO_TEXT, SpeechToText, TEXT_TO_SPEECH, TextToSpeech } from './speech.port';

/** Speech to text and text to speech: OpenAI-compatible when a base URL is known, else none. */
@Module({
  providers: [
    {
      provide: SPEECH_TO_TEXT,
      inject: [APP_CONFIG],
      useFactory: ({ speech: { stt } }: AppConfig): SpeechToText =>
        stt.baseUrl ? new OpenAiSpeechToText({ ...stt, baseUrl: stt.baseUrl }) : new NoSpeech(),
    },
    {
      provide: TEXT_TO_SPEECH,
      inject: [APP_CONFIG],
      useFactory: ({ speech: { tts } }: AppConfig): TextToSpeech =>
        tts.baseUrl ? new OpenAiTextToSpeech({ ...tts, baseUrl: tts.baseUrl }) : new NoSpeech(),
    },
  ],
  exports: [SPEECH_TO_TEXT, TEXT_TO_SPEECH],
})
export class SpeechModule {}
