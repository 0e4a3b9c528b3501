import { CallHandler, ExecutionContext, HttpStatus, Injectable, NestInterceptor } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { catchError, from, mergeMap, Observable, throwError } from 'rxjs';
import { AppException } from '@/common/errors/app.exception';
import type { TenantRequest } from '@/common/auth/request-context';
import { ReplayedResponse } from '@/common/http/replayed-response';
import { IdempotencyService, requestHash } from './idempotency.service';

const HEADER = 'idempotency-key';
const KEPT_HEADERS = ['location'];

/**
 * `Idempotency-Key` on POST: the first successful answer is kept 24 hours and answered again for the same key and
 * body; another body is 422, a retry while the first runs is 409. Errors are not kept, so a corrected retry works.
 * It wraps the envelope interceptor, so what it stores is exactly the body the client receives.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly service: IdempotencyService,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<TenantRequest>();
    const key = req.headers[HEADER];
    if (req.method !== 'POST' || key === undefined || !req.workspace) return next.handle();
    if (typeof key !== 'string' || key.length === 0 || key.length > 255)
      throw AppException.invalid('Idempotency-Key', 'Idempotency-Key must be 1 to 255 characters');
    const workspaceId = req.workspace.id;
    const hash = requestHash(req.method, req.path, req.body);
    const res = context.switchToHttp().getResponse<Response>();
    const status = this.reflector.get<number>(HTTP_CODE_METADATA, context.getHandler()) ?? HttpStatus.CREATED;

    return from(this.service.begin(workspaceId, key, hash)).pipe(
      mergeMap((begin) => {
        if (begin.kind === 'replay') throw new ReplayedResponse(begin.status, begin.headers, begin.body);
        return next.handle().pipe(
          mergeMap(async (body: unknown) => {
            const headers: Record<string, string> = {};
            for (const name of KEPT_HEADERS) {
              const v = res.getHeader(name);
              if (typeof v === 'string') headers[name] = v;
            }
            await this.service.complete(workspaceId, key, status, headers, JSON.stringify(body));
            return body;
          }),
          catchError((err: unknown) =>
            from(this.service.release(workspaceId, key)).pipe(mergeMap(() => throwError(() => err))),
          ),
        );
      }),
    );
  }
}
