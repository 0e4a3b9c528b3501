import * as path from 'node:path';
import { validateEnvironment } from './env.validation';

export interface AppConfig {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  serviceDomain: string;
  trustProxy: boolean;
  storageDir: string;
  tls: { certFile?: string; keyFile?: string };
  /** `poolMin`: connections opened at start and kept open (warm), of the pool's 20. */
  database: { url: string; poolMin: number };
  redis: { url: string; prefix: string };
  auth: { adminApiKey?: string; encryptionKey?: string };
  limits: {
    ratePerMinute: number;
    maxConcurrentCalls: number;
    crawlMaxPages: number;
    /** Numbers a workspace may hold bought through the number inventory. */
    phoneNumberPurchases: number;
    /** Per client IP and minute: web calls started (`POST /web-calls`) and web call sockets opened or checked. */
    webCallMintsPerMinute: number;
    webCallConnectsPerMinute: number;
  };
  network: { allowPrivateTargets: boolean };
  llm: { baseUrl?: string; apiKey?: string; model: string };
  embeddings: { baseUrl?: string; apiKey?: string; model: string };
  /** Speech to text (defaults to the language model's address and key). */
  stt: { baseUrl?: string; apiKey?: string; model: string };
  /** How long the request and action logs are kept. */
  logRetentionDays: number;
  /** Whether API requests are written to the request log (on unless REQUEST_LOG=false). */
  requestLog: boolean;
  runWorkers: boolean;
  logLevel: string;
  shutdownTimeoutMs: number;
  /** The worker process's health listener; none when unset. */
  workerHealthPort?: number;
  /** Sandbox telephony: ring, delivery and approval delay. */
  telephony: { sandboxAnswerDelayMs: number };
  /** The address providers call (hooks) and sign against. */
  publicBaseUrl: string;
  /** Twilio REST and signatures; off without an account SID. */
  twilio: { accountSid?: string; authToken?: string; apiUrl: string; pricingUrl: string };
  /** Meta Graph API (WhatsApp Cloud API, Messenger Send API) and its hook signing; off without a token. */
  meta: { graphUrl: string; accessToken?: string; appSecret?: string; verifyToken?: string };
  /** Speech to text and text to speech (OpenAI-compatible); they fall back to the language model's endpoint. */
  speech: {
    stt: { baseUrl?: string; apiKey?: string; model: string; mode: SttMode; realtime: RealtimeSttConfig };
    tts: { baseUrl?: string; apiKey?: string; model: string; voice: string };
  };
  /** Voice activity on calls: the Silero model (the energy detector when its file cannot be loaded), or energy. */
  vad: { engine: 'silero' | 'energy'; modelPath?: string };
}

/** `batch`: a turn's audio is sent whole once it ends; `realtime`: streamed while the caller speaks. */
export type SttMode = 'batch' | 'realtime';

/** The streaming speech-to-text endpoint (OpenAI Realtime API, transcription intent). */
export interface RealtimeSttConfig {
  /** `ws(s)://…/realtime?intent=transcription`: STT_REALTIME_URL, else derived from the speech-to-text address. */
  url?: string;
  apiKey?: string;
  model: string;
  /** `openai`: the current protocol (`session.update` of type `transcription`); `openai-beta`: the beta one. */
  protocol: 'openai' | 'openai-beta';
  /** Ask the service to cut the audio at its own pauses (server VAD), so words arrive while the caller speaks. */
  serverVad: boolean;
}

/** `https://host/v1` to `wss://host/v1/realtime?intent=transcription`; a given ws(s) URL is kept as it is. */
export function realtimeSttUrl(given: string | undefined, base: string | undefined): string | undefined {
  if (given) return given.replace(/^http(s?):/i, 'ws$1:');
  if (!base) return undefined;
  return `${base.replace(/\/+$/, '').replace(/^http(s?):/i, 'ws$1:')}/realtime?intent=transcription`;
}

export const APP_CONFIG = Symbol('APP_CONFIG');

/** Reads and validates the environment once; throws ConfigValidationError naming each bad variable. */
export function loadConfig(raw: Record<string, string | undefined> = process.env): AppConfig {
  const env = validateEnvironment(raw);
  const nodeEnv = (env.NODE_ENV ?? 'development') as AppConfig['nodeEnv'];
  return {
    nodeEnv,
    port: env.PORT ?? 3000,
    serviceDomain: (env.SERVICE_DOMAIN ?? 'localhost').toLowerCase(),
    trustProxy: env.TRUST_PROXY ?? false,
    storageDir: path.resolve(env.STORAGE_DIR ?? './storage'),
    tls: { certFile: env.TLS_CERT_FILE, keyFile: env.TLS_KEY_FILE },
    database: {
      url: env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/agent_platform',
      poolMin: env.DATABASE_POOL_MIN ?? 8,
    },
    redis: { url: env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix: env.REDIS_PREFIX ?? 'cap' },
    auth: { adminApiKey: env.ADMIN_API_KEY, encryptionKey: env.ENCRYPTION_KEY },
    limits: {
      ratePerMinute: env.RATE_LIMIT_PER_MINUTE ?? 1000,
      maxConcurrentCalls: env.MAX_CONCURRENT_CALLS ?? 50,
      crawlMaxPages: env.CRAWL_MAX_PAGES ?? 100,
      phoneNumberPurchases: env.PHONE_NUMBER_PURCHASE_LIMIT ?? 10,
      webCallMintsPerMinute: env.WEB_CALL_MINTS_PER_MINUTE ?? 600,
      webCallConnectsPerMinute: env.WEB_CALL_CONNECTS_PER_MINUTE ?? 60,
    },
    network: { allowPrivateTargets: env.ALLOW_PRIVATE_NETWORK_TARGETS ?? false },
    llm: { baseUrl: env.LLM_BASE_URL, apiKey: env.LLM_API_KEY, model: env.LLM_MODEL ?? 'gpt-4o-mini' },
    embeddings: {
      baseUrl: env.EMBEDDINGS_BASE_URL,
      apiKey: env.EMBEDDINGS_API_KEY,
      model: env.EMBEDDINGS_MODEL ?? 'text-embedding-3-small',
    },
    stt: {
      baseUrl: env.STT_BASE_URL ?? env.LLM_BASE_URL,
      apiKey: env.STT_API_KEY ?? env.LLM_API_KEY,
      model: env.STT_MODEL ?? 'whisper-1',
    },
    logRetentionDays: env.LOG_RETENTION_DAYS ?? 30,
    requestLog: env.REQUEST_LOG ?? true,
    runWorkers: env.RUN_WORKERS ?? true,
    logLevel: env.LOG_LEVEL ?? (nodeEnv === 'test' ? 'silent' : 'info'),
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS ?? 10000,
    workerHealthPort: env.WORKER_HEALTH_PORT,
    telephony: { sandboxAnswerDelayMs: env.SANDBOX_ANSWER_DELAY_MS ?? 1000 },
    publicBaseUrl: (
      env.PUBLIC_BASE_URL ??
      `https://${(env.SERVICE_DOMAIN ?? 'localhost').toLowerCase()}:${env.PORT ?? 3000}`
    ).replace(/\/+$/, ''),
    twilio: {
      accountSid: env.TWILIO_ACCOUNT_SID,
      authToken: env.TWILIO_AUTH_TOKEN,
      apiUrl: (env.TWILIO_API_URL ?? 'https://api.twilio.com').replace(/\/+$/, ''),
      pricingUrl: (env.TWILIO_PRICING_URL ?? 'https://pricing.twilio.com').replace(/\/+$/, ''),
    },
    meta: {
      graphUrl: (env.META_GRAPH_URL ?? 'https://graph.facebook.com/v21.0').replace(/\/+$/, ''),
      accessToken: env.META_ACCESS_TOKEN,
      appSecret: env.META_APP_SECRET,
      verifyToken: env.META_VERIFY_TOKEN,
    },
    speech: {
      stt: {
        baseUrl: env.STT_BASE_URL ?? env.LLM_BASE_URL,
        apiKey: env.STT_API_KEY ?? env.LLM_API_KEY,
        model: env.STT_MODEL ?? 'whisper-1',
        mode: (env.STT_MODE ?? 'batch') as SttMode,
        realtime: {
          url: realtimeSttUrl(env.STT_REALTIME_URL, env.STT_BASE_URL ?? env.LLM_BASE_URL),
          apiKey: env.STT_REALTIME_API_KEY ?? env.STT_API_KEY ?? env.LLM_API_KEY,
          model: env.STT_REALTIME_MODEL ?? 'gpt-4o-transcribe',
          protocol: (env.STT_REALTIME_PROTOCOL ?? 'openai') as RealtimeSttConfig['protocol'],
          serverVad: env.STT_REALTIME_SERVER_VAD ?? false,
        },
      },
      tts: {
        baseUrl: env.TTS_BASE_URL ?? env.LLM_BASE_URL,
        apiKey: env.TTS_API_KEY ?? env.LLM_API_KEY,
        model: env.TTS_MODEL ?? 'tts-1',
        voice: env.TTS_VOICE ?? 'alloy',
      },
    },
    vad: {
      engine: (env.VAD ?? 'silero') as AppConfig['vad']['engine'],
      modelPath: env.VAD_MODEL_PATH && path.resolve(env.VAD_MODEL_PATH),
    },
  };
}
