import type { TestApp } from '../setup/test-app';
import { ApiProcess, startApiProcess } from './api-process-client';
import type { LlmServer } from './llm-server';
import type { SpeechServer } from './speech-server';
import { TWILIO_SID, TWILIO_TOKEN, TwilioServer } from './twilio-server';

export interface VoiceServers {
  twilio: TwilioServer;
  llm: LlmServer;
  speech: SpeechServer;
}

/** The configuration of a process running Twilio calls against the local Twilio, model and speech servers. */
export function voiceEnv({ twilio, llm, speech }: VoiceServers, publicUrl: string): Record<string, string> {
  return {
    LLM_BASE_URL: llm.url,
    STT_BASE_URL: speech.url,
    TTS_BASE_URL: speech.url,
    TWILIO_ACCOUNT_SID: TWILIO_SID,
    TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
    TWILIO_API_URL: twilio.url,
    PUBLIC_BASE_URL: publicUrl,
  };
}

/** One more API replica (workers on) sharing the app's database, Redis prefix, storage and keys, with voiceEnv. */
export function startVoiceReplica(
  app: TestApp,
  servers: VoiceServers,
  publicUrl: string,
): Promise<ApiProcess> {
  return startApiProcess({
    DATABASE_URL: app.config.database.url,
    REDIS_PREFIX: app.config.redis.prefix,
    STORAGE_DIR: app.config.storageDir,
    ENCRYPTION_KEY: app.config.auth.encryptionKey!,
    ...voiceEnv(servers, publicUrl),
    LOG_LEVEL: 'silent',
  });
}
