import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  Inject,
  Logger,
  Optional,
} from '@nestjs/common';
import type { Logger as Pino } from 'pino';
import type { Request, Response } from 'express';
import { AppException } from '@/common/errors/app.exception';
import { pgError } from '@/common/persistence/pg-errors';
import { ROOT_LOGGER } from '@/common/logging/logging.module';
import { generalBody, shortBody } from './error-body';
import { ReplayedResponse } from './replayed-response';

/** Turns anything thrown into an AppException; unknown errors become a 500 that leaks nothing. */
export function toAppException(err: unknown): AppException {
  if (err instanceof AppException) return err;
  if (err instanceof HttpException) {
    const status = err.getStatus();
    if (status === 404) return new AppException('ENDPOINT_NOT_FOUND', 'Endpoint not found');
    if (status === 413) return new AppException('PAYLOAD_TOO_LARGE', 'Payload too large');
    if (status === 400) return new AppException('BAD_REQUEST', err.message || 'Bad request');
    if (status === 401) return new AppException('INVALID_AUTH_TOKEN', 'Invalid or revoked token');
    if (status === 403) return new AppException('FORBIDDEN', 'Forbidden');
    if (status === 429) return new AppException('RATE_LIMIT_EXCEEDED', 'Rate limit exceeded');
    if (status === 503) return new AppException('SERVICE_UNAVAILABLE', 'Service unavailable');
  }
  const raw = err as { type?: string; status?: number };
  if (raw?.type === 'entity.too.large' || raw?.status === 413)
    return new AppException('PAYLOAD_TOO_LARGE', 'Request body too large');
  if (raw?.type === 'entity.parse.failed')
    return new AppException('BAD_REQUEST', 'Malformed JSON in request body');
  return new AppException('INTERNAL_SERVER_ERROR', 'An unexpected error occurred');
}

/**
 * What a log line keeps of an error: a failed query's bound values and the driver's detail may hold secrets or
 * personal data (an intent's auth_token, a phone number), so only the message, SQL text and codes are kept.
 */
export function loggableError(err: unknown): unknown {
  if (!(err instanceof Error) || !('parameters' in err || 'driverError' in err)) return err;
  const { code, constraint } = pgError(err);
  const safe = new Error(err.message);
  safe.name = err.name;
  safe.stack = err.stack;
  return Object.assign(safe, { query: (err as { query?: unknown }).query, code, constraint });
}

/** Which error body a request gets; routes that the specification shows with the short body set it. */
export const SHORT_ERRORS_FOR = Symbol('cap:short-errors');
export type ShortErrorsFor = (e: AppException) => boolean;

/** The single place that writes error bodies. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  /**
   * The process's root logger, the one the request lines go to: every 5xx writes its cause there once, with
   * the request id (Nest's logger may be bound to another application's logger in the same process).
   */
  constructor(@Optional() @Inject(ROOT_LOGGER) private readonly root?: Pino) {}

  catch(err: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request & { id?: string; [SHORT_ERRORS_FOR]?: ShortErrorsFor }>();
    const res = ctx.getResponse<Response>();
    if (err instanceof ReplayedResponse) {
      res
        .status(err.status)
        .set({ ...err.headers, 'Idempotent-Replayed': 'true' })
        .type('application/json')
        .send(err.body);
      return;
    }
    const e = toAppException(err);
    if (e.status >= 500) {
      const entry = { err: loggableError(err), requestId: req.id, method: req.method, path: req.path };
      const message = `Unhandled error on ${req.method} ${req.path}`;
      if (this.root) this.root.error({ context: 'HTTP', ...entry }, message);
      else this.logger.error(entry, message);
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    if (e.options.retryAfter !== undefined) res.setHeader('Retry-After', String(e.options.retryAfter));
    const short = req[SHORT_ERRORS_FOR]?.(e) ?? false;
    res.status(e.status).json(short ? shortBody(e) : generalBody(e));
  }
}
