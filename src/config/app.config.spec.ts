import { loadConfig } from './app.config';
import { ConfigValidationError } from './env.validation';

describe('configuration', () => {
  it('works with no variables at all, using the contract defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      serviceDomain: 'localhost',
      trustProxy: false,
      database: { url: 'postgres://postgres@127.0.0.1:5432/agent_platform', poolMin: 8 },
      redis: { url: 'redis://127.0.0.1:6379' },
      limits: { ratePerMinute: 1000, maxConcurrentCalls: 50, crawlMaxPages: 100 },
      network: { allowPrivateTargets: false },
      runWorkers: true,
      auth: { adminApiKey: undefined, encryptionKey: undefined },
    });
    expect(c.storageDir).toMatch(/storage$/);
  });

  it('reads and converts values', () => {
    const c = loadConfig({
      PORT: '8443',
      TRUST_PROXY: 'true',
      RUN_WORKERS: 'false',
      RATE_LIMIT_PER_MINUTE: '10',
      SERVICE_DOMAIN: 'API.Example.com',
      WORKER_HEALTH_PORT: '3001',
      DATABASE_POOL_MIN: '0',
    });
    expect(c).toMatchObject({
      port: 8443,
      trustProxy: true,
      runWorkers: false,
      limits: { ratePerMinute: 10 },
      serviceDomain: 'api.example.com',
      workerHealthPort: 3001,
      database: { poolMin: 0 },
    });
  });

  it('reads the voice activity engine and model file (Silero and the bundled weights by default)', () => {
    expect(loadConfig({}).vad).toEqual({ engine: 'silero', modelPath: undefined });
    expect(loadConfig({ VAD: 'energy', VAD_MODEL_PATH: 'models/vad.onnx' }).vad).toEqual({
      engine: 'energy',
      modelPath: expect.stringMatching(/^\/.*\/models\/vad\.onnx$/),
    });
  });

  it('reads the speech-to-text mode and the realtime endpoint, derived from the speech-to-text address by default', () => {
    expect(loadConfig({}).speech.stt).toMatchObject({
      mode: 'batch',
      realtime: { url: undefined, model: 'gpt-4o-transcribe', protocol: 'openai', serverVad: false },
    });
    expect(
      loadConfig({ STT_BASE_URL: 'https://api.openai.com/v1/', STT_API_KEY: 'k1' }).speech.stt.realtime,
    ).toEqual({
      url: 'wss://api.openai.com/v1/realtime?intent=transcription',
      apiKey: 'k1',
      model: 'gpt-4o-transcribe',
      protocol: 'openai',
      serverVad: false,
    });
    expect(
      loadConfig({
        STT_MODE: 'realtime',
        STT_BASE_URL: 'http://stt.local/v1',
        STT_API_KEY: 'k1',
        STT_REALTIME_URL: 'https://rt.example.com/v1/realtime?intent=transcription',
        STT_REALTIME_API_KEY: 'k2',
        STT_REALTIME_MODEL: 'gpt-4o-mini-transcribe',
        STT_REALTIME_PROTOCOL: 'openai-beta',
        STT_REALTIME_SERVER_VAD: 'true',
      }).speech.stt,
    ).toMatchObject({
      mode: 'realtime',
      realtime: {
        url: 'wss://rt.example.com/v1/realtime?intent=transcription',
        apiKey: 'k2',
        model: 'gpt-4o-mini-transcribe',
        protocol: 'openai-beta',
        serverVad: true,
      },
    });
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'localhost:6379' }, 'REDIS_URL'],
    [{ TRUST_PROXY: 'yes' }, 'TRUST_PROXY'],
    [{ WORKER_HEALTH_PORT: 'health' }, 'WORKER_HEALTH_PORT must'],
    [{ RATE_LIMIT_PER_MINUTE: '0' }, 'RATE_LIMIT_PER_MINUTE'],
    [{ DATABASE_POOL_MIN: '21' }, 'DATABASE_POOL_MIN'],
    [{ DATABASE_POOL_MIN: 'many' }, 'DATABASE_POOL_MIN'],
    [{ ENCRYPTION_KEY: 'short' }, 'ENCRYPTION_KEY'],
    [{ ADMIN_API_KEY: 'tiny' }, 'ADMIN_API_KEY'],
    [{ LLM_BASE_URL: 'not a url' }, 'LLM_BASE_URL'],
    [{ VAD: 'webrtc' }, 'VAD must be one of'],
    [{ STT_MODE: 'stream' }, 'STT_MODE must be one of the following values: batch, realtime'],
    [{ STT_REALTIME_URL: 'api.openai.com/v1/realtime' }, 'STT_REALTIME_URL must be a ws(s) or http(s) URL'],
    [{ STT_REALTIME_PROTOCOL: 'v2' }, 'STT_REALTIME_PROTOCOL must be one of'],
    [{ STT_REALTIME_SERVER_VAD: 'on' }, 'STT_REALTIME_SERVER_VAD must be true or false'],
    [{ NODE_ENV: 'production' }, 'ENCRYPTION_KEY is required in production'],
    [{ TLS_CERT_FILE: '/x.crt' }, 'TLS_CERT_FILE and TLS_KEY_FILE must be set together'],
  ])('stops with a message naming the bad variable: %j', (env, named) => {
    expect(() => loadConfig(env)).toThrow(ConfigValidationError);
    expect(() => loadConfig(env)).toThrow(named);
  });

  it('names each bad variable once, before what is wrong with it', () => {
    expect(() => loadConfig({ PORT: 'x', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x' })).toThrow(
      'Invalid configuration: PORT must not be greater than 65535, must not be less than 0, must be an integer number; ' +
        'DATABASE_URL must be a postgres:// URL; LOG_LEVEL must be one of the following values: ' +
        'fatal, error, warn, info, debug, trace, silent',
    );
  });

  it('names every bad variable at once', () => {
    expect(() => loadConfig({ PORT: 'x', TRUST_PROXY: 'maybe' })).toThrow(/PORT.*; TRUST_PROXY/);
  });
});
