import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import type { Logger as Pino } from 'pino';
import { ROOT_LOGGER } from '@/common/logging/logging.module';
import { Metrics } from '@/common/metrics/metrics';
import { OpenAiSpeechToText, OpenAiTextToSpeech } from './openai-compatible.speech';
import { OpenAiRealtimeSpeechToText } from './openai-realtime.stt';
import {
  NoSpeech,
  NoSpeechStream,
  SPEECH_TO_TEXT,
  SPEECH_TO_TEXT_STREAM,
  SpeechToText,
  StreamingSpeechToText,
  TEXT_TO_SPEECH,
  TextToSpeech,
} from './speech.port';

/**
 * Speech to text (batch, and streaming over the Realtime API when its address is known) and text to speech:
 * OpenAI-compatible when a base URL is known, else none.
 */
@Module({
  providers: [
    {
      provide: SPEECH_TO_TEXT,
      inject: [APP_CONFIG, Metrics],
      useFactory: ({ speech: { stt } }: AppConfig, metrics: Metrics): SpeechToText =>
        stt.baseUrl ? new OpenAiSpeechToText({ ...stt, baseUrl: stt.baseUrl }, {}, metrics) : new NoSpeech(),
    },
    {
      provide: SPEECH_TO_TEXT_STREAM,
      inject: [APP_CONFIG, Metrics, { token: ROOT_LOGGER, optional: true }],
      useFactory: ({ speech: { stt } }: AppConfig, metrics: Metrics, root?: Pino): StreamingSpeechToText => {
        if (!stt.realtime.url) return new NoSpeechStream();
        const lines = root?.child({ context: 'RealtimeSpeechToText' });
        return new OpenAiRealtimeSpeechToText(
          { ...stt.realtime, url: stt.realtime.url },
          { metrics, log: lines && { warn: (message) => lines.warn(message) } },
        );
      },
    },
    {
      provide: TEXT_TO_SPEECH,
      inject: [APP_CONFIG, Metrics],
      useFactory: ({ speech: { tts } }: AppConfig, metrics: Metrics): TextToSpeech =>
        tts.baseUrl ? new OpenAiTextToSpeech({ ...tts, baseUrl: tts.baseUrl }, {}, metrics) : new NoSpeech(),
    },
  ],
  exports: [SPEECH_TO_TEXT, SPEECH_TO_TEXT_STREAM, TEXT_TO_SPEECH],
})
export class SpeechModule {}
