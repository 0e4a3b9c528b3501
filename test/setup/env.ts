// Every e2e file runs against the run's database and Redis prefix (set by global-setup) with quiet logs.
process.env.NODE_ENV = 'test';
process.env.LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'silent';
process.env.ALLOW_PRIVATE_NETWORK_TARGETS = 'true';
process.env.ADMIN_API_KEY = 'test-admin-key-0123456789abcdef';
process.env.SERVICE_DOMAIN = 'localhost';
process.env.SHUTDOWN_TIMEOUT_MS = '2000';
delete process.env.LLM_BASE_URL;
delete process.env.TRUST_PROXY;
// Each app keeps two connections warm (the default, 8, times the apps of two workers would crowd PostgreSQL).
process.env.DATABASE_POOL_MIN = '2';
// The voice specs speak in tones, which the Silero model rightly hears as no speech; the energy detector hears
// them. Specs of recorded speech set VAD=silero.
process.env.VAD = 'energy';
