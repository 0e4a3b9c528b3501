import { DynamicModule, Inject, Injectable, Module, NestMiddleware } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import pino, { DestinationStream, Logger as Pino } from 'pino';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppConfig } from '@/config/app.config';
import { tracingEnabled } from '@/common/telemetry/telemetry';
import { currentTraceId } from '@/common/telemetry/trace-context';

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Fields that never reach a log line, wherever they appear. */
export const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  '*.secret',
  '*.secret_key',
  '*.token',
  '*.password',
  '*.auth_token',
  '*.apiKey',
];

/** The root pino logger of the process. */
export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

type LoggedRequest = IncomingMessage & { id?: string; workspace?: { slug: string } };

/**
 * One line a request, written when the answer is finished: `{req: {id, method, url}, res: {statusCode},
 * responseTime, workspace}`, at `error` for 5xx and `info` otherwise. The request id comes from a valid
 * `X-Request-Id` or is generated, and is answered in `X-Request-Id`. No logger is created per request and no
 * async context is kept: the line is written from the response's `finish` event with the root logger (a
 * per-request child logger and async context cost about a fifth of the throughput of a simple read). Errors of
 * a request are logged by the exception filter with the request id.
 */
@Injectable()
export class RequestLogMiddleware implements NestMiddleware {
  constructor(@Inject(ROOT_LOGGER) private readonly logger: Pino) {}

  use(req: LoggedRequest, res: ServerResponse, next: () => void): void {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID_RE.test(given) ? given : randomUUID();
    req.id = id;
    res.setHeader('X-Request-Id', id);
    if (req.url === '/health' || req.url === '/health/ready' || req.url?.startsWith('/hooks/')) return next();
    const started = performance.now();
    const logger = this.logger;
    // Read now (the response's end runs outside the request's trace), and only for a line that can be written.
    const traceId = logger.isLevelEnabled('error') ? currentTraceId() : undefined;
    res.once('finish', () => {
      const status = res.statusCode;
      const level = status >= 500 ? 'error' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          req: { id, method: req.method, url: req.url },
          res: { statusCode: status },
          responseTime: Math.round(performance.now() - started),
          workspace: req.workspace?.slug,
          trace_id: traceId,
        },
        'request completed',
      );
    });
    next();
  }
}

let processLogger: { key: string; logger: Pino } | undefined;

/**
 * In development on a terminal, pino-pretty's readable lines (written synchronously, so the last line before an
 * exit is not lost); otherwise none. pino-pretty is a development dependency, absent from the production image.
 */
function prettyStream(config: AppConfig): DestinationStream | undefined {
  if (config.nodeEnv !== 'development' || !process.stdout.isTTY) return undefined;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pretty = require('pino-pretty') as typeof import('pino-pretty');
    return pretty({
      sync: true,
      colorize: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,context',
      messageFormat: '{if context}[{context}] {end}{msg}',
    });
  } catch {
    return undefined;
  }
}

/** With tracing on, every line written while a trace is current carries its id. */
function traceMixin(): { trace_id?: string } {
  const traceId = currentTraceId();
  return traceId ? { trace_id: traceId } : {};
}

/**
 * The process's logger on standard output, one per process and level: the start-up steps before the application
 * exists and the application itself write through the same one. Lines go to `destination` instead when given. With
 * tracing on, a line written in a request or a job carries `trace_id`.
 */
export function rootLogger(config: AppConfig, destination?: DestinationStream): Pino {
  const options = {
    level: config.logLevel,
    redact: { paths: REDACT, censor: '[redacted]' },
    ...(tracingEnabled() ? { mixin: traceMixin } : {}),
  };
  if (destination) return pino(options, destination);
  const key = `${config.logLevel}|${config.nodeEnv}`;
  if (processLogger?.key !== key) {
    const pretty = prettyStream(config);
    processLogger = { key, logger: pretty ? pino(options, pretty) : pino(options) };
  }
  return processLogger.logger;
}

/**
 * Structured JSON logs (pino; readable lines in development on a terminal). Lines go to standard output, or to
 * `destination` when one is given (tests read what was logged). nestjs-pino serves as Nest's logger (every `new Logger(Context)` writes through the root
 * logger); its request middleware is not installed (`forRoutes: []`): `RequestLogMiddleware`, applied first to
 * every route by the application module, writes the request lines instead.
 */
@Module({})
export class LoggingModule {
  static forRoot(config: AppConfig, destination?: DestinationStream): DynamicModule {
    const logger = rootLogger(config, destination);
    return {
      module: LoggingModule,
      global: true,
      imports: [LoggerModule.forRoot({ pinoHttp: { logger }, forRoutes: [] })],
      providers: [{ provide: ROOT_LOGGER, useValue: logger }],
      exports: [ROOT_LOGGER],
    };
  }
}
