import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  MinLength,
  validateSync,
} from 'class-validator';

const toBool = ({ value }: { value: unknown }) =>
  value === undefined || value === ''
    ? undefined
    : value === 'true'
      ? true
      : value === 'false'
        ? false
        : value;
const toInt = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value === '' ? undefined : value;
const emptyToUndefined = ({ value }: { value: unknown }) => (value === '' ? undefined : value);

/** Every variable of the environment the service reads, with its rule. Defaults live in app.config.ts. */
export class EnvironmentVariables {
  @IsOptional() @IsIn(['development', 'production', 'test']) NODE_ENV?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(65535) PORT?: number;
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'must be a postgres:// URL' })
  DATABASE_URL?: string;
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^rediss?:\/\/.+/, { message: 'must be a redis:// URL' })
  REDIS_URL?: string;
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^[a-z0-9_-]+$/i, { message: 'must be letters, digits, _ or -' })
  REDIS_PREFIX?: string;
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^([a-z0-9](-?[a-z0-9])*)(\.[a-z0-9](-?[a-z0-9])*)*$/i, { message: 'must be a DNS name' })
  SERVICE_DOMAIN?: string;
  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  @MinLength(16, { message: 'must be at least 16 characters' })
  ADMIN_API_KEY?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() TLS_CERT_FILE?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() TLS_KEY_FILE?: string;
  @IsOptional() @Transform(toBool) @IsBoolean({ message: 'must be true or false' }) TRUST_PROXY?: boolean;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) RATE_LIMIT_PER_MINUTE?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) MAX_CONCURRENT_CALLS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(100000) PHONE_NUMBER_PURCHASE_LIMIT?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) WEB_CALL_MINTS_PER_MINUTE?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) WEB_CALL_CONNECTS_PER_MINUTE?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(600000) SANDBOX_ANSWER_DELAY_MS?: number;
  @IsOptional() @Transform(emptyToUndefined) @IsString() STORAGE_DIR?: string;
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^[0-9a-f]{64}$/i, { message: 'must be 64 hexadecimal characters (32 bytes)' })
  ENCRYPTION_KEY?: string;
  @IsOptional()
  @Transform(toBool)
  @IsBoolean({ message: 'must be true or false' })
  ALLOW_PRIVATE_NETWORK_TARGETS?: boolean;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(10000) CRAWL_MAX_PAGES?: number;
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^https?:\/\/.+/, { message: 'must be an http(s) URL' })
  LLM_BASE_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() LLM_API_KEY?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() LLM_MODEL?: string;
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^https?:\/\/.+/, { message: 'must be an http(s) URL' })
  EMBEDDINGS_BASE_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() EMBEDDINGS_API_KEY?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() EMBEDDINGS_MODEL?: string;
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^https?:\/\/.+/, { message: 'must be an http(s) URL' })
  STT_BASE_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() STT_API_KEY?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() STT_MODEL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsIn(['batch', 'realtime']) STT_MODE?: string;
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^(wss?|https?):\/\/.+/, { message: 'must be a ws(s) or http(s) URL' })
  STT_REALTIME_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() STT_REALTIME_MODEL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() STT_REALTIME_API_KEY?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsIn(['openai', 'openai-beta']) STT_REALTIME_PROTOCOL?: string;
  @IsOptional()
  @Transform(toBool)
  @IsBoolean({ message: 'must be true or false' })
  STT_REALTIME_SERVER_VAD?: boolean;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(3650) LOG_RETENTION_DAYS?: number;
  @IsOptional() @Transform(toBool) @IsBoolean({ message: 'must be true or false' }) REQUEST_LOG?: boolean;
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^https?:\/\/.+/, { message: 'must be an http(s) URL' })
  TTS_BASE_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() TTS_API_KEY?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() TTS_MODEL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() TTS_VOICE?: string;
  @IsOptional() @Transform(toBool) @IsBoolean({ message: 'must be true or false' }) RUN_WORKERS?: boolean;
  @IsOptional() @Transform(emptyToUndefined) @IsIn(['silero', 'energy']) VAD?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() VAD_MODEL_PATH?: string;
  @IsOptional() @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) LOG_LEVEL?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) SHUTDOWN_TIMEOUT_MS?: number;
  /** Connections each process opens at start and keeps open (at most the pool's 20). */
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(20) DATABASE_POOL_MIN?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) @Max(65535) WORKER_HEALTH_PORT?: number;
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^https?:\/\/.+/, { message: 'must be an http(s) URL' })
  PUBLIC_BASE_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() TWILIO_ACCOUNT_SID?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() TWILIO_AUTH_TOKEN?: string;
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^https?:\/\/.+/, { message: 'must be an http(s) URL' })
  TWILIO_API_URL?: string;
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^https?:\/\/.+/, { message: 'must be an http(s) URL' })
  TWILIO_PRICING_URL?: string;
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^https?:\/\/.+/, { message: 'must be an http(s) URL' })
  META_GRAPH_URL?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() META_ACCESS_TOKEN?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() META_APP_SECRET?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() META_VERIFY_TOKEN?: string;
}

export class ConfigValidationError extends Error {}

/** Validates the raw environment; the message names every bad variable. */
export function validateEnvironment(raw: Record<string, string | undefined>): EnvironmentVariables {
  const env = plainToInstance(EnvironmentVariables, raw, { exposeDefaultValues: false });
  const errors = validateSync(env, { skipMissingProperties: false, whitelist: false });
  // class-validator's default messages start with the property name; it is said once, before all of them.
  const problems = errors.map((e) => {
    const said = Object.values(e.constraints ?? {}).map((m) =>
      m.startsWith(`${e.property} `) ? m.slice(e.property.length + 1) : m,
    );
    return `${e.property} ${said.join(', ')}`;
  });
  if (env.NODE_ENV === 'production' && !env.ENCRYPTION_KEY)
    problems.push('ENCRYPTION_KEY is required in production');
  if (!!env.TLS_CERT_FILE !== !!env.TLS_KEY_FILE)
    problems.push('TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  if (problems.length) throw new ConfigValidationError(`Invalid configuration: ${problems.join('; ')}`);
  return env;
}
