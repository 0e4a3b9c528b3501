import { CallHandler, ExecutionContext, HttpStatus, Injectable, NestInterceptor } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { createHash } from 'node:crypto';
import { createReadStream, promises as fsp } from 'node:fs';
import { catchError, from, mergeMap, Observable, throwError } from 'rxjs';
import { AppException } from '@/common/errors/app.exception';
import type { TenantRequest } from '@/common/auth/request-context';
import { ACCEPTS_MULTIPART } from '@/common/http/body.guard';
import { ReplayedResponse } from '@/common/http/replayed-response';
import { IdempotencyService, requestHash } from './idempotency.service';

const HEADER = 'idempotency-key';
const KEPT_HEADERS = ['location'];
/**
 * One claim per request. The global instance runs first: on a multipart request it defers (`deferred`) to the route's
 * own instance, which runs after the upload is parsed; otherwise it claims the key (`claimed`), and the route's
 * instance, if any, lets the request through.
 */
const CLAIM = Symbol('cap:idempotency-claim');

interface DiskFile {
  path: string;
  originalname: string;
  size: number;
}
type IdempotentRequest = TenantRequest & { [CLAIM]?: 'deferred' | 'claimed'; file?: DiskFile };

function fileDigest(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

/**
 * Multipart routes list this interceptor after their file interceptor, so that the stored request hash covers the
 * form fields and the uploaded file's content, which are parsed only then.
 *
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
    const req = context.switchToHttp().getRequest<IdempotentRequest>();
    const key = req.headers[HEADER];
    if (req.method !== 'POST' || key === undefined || !req.workspace) return next.handle();
    if (typeof key !== 'string' || key.length === 0 || key.length > 255)
      throw AppException.invalid('Idempotency-Key', 'Idempotency-Key must be 1 to 255 characters');
    if (req[CLAIM] === 'claimed') return next.handle();
    const multipart =
      this.reflector.get<boolean>(ACCEPTS_MULTIPART, context.getHandler()) === true &&
      /^multipart\/form-data/i.test(req.headers['content-type'] ?? '');
    if (multipart && req[CLAIM] !== 'deferred') {
      req[CLAIM] = 'deferred';
      return next.handle();
    }
    req[CLAIM] = 'claimed';
    const workspaceId = req.workspace.id;
    const res = context.switchToHttp().getResponse<Response>();
    const status = this.reflector.get<number>(HTTP_CODE_METADATA, context.getHandler()) ?? HttpStatus.CREATED;
    const file = multipart ? req.file : undefined;
    // An upload that is not handed to the handler (replay, refusal) must not stay on disk.
    const discardFile = () => (file ? fsp.rm(file.path, { force: true }).catch(() => undefined) : undefined);

    const beginning = (async () => {
      const content = file
        ? { fields: req.body ?? null, file: { name: file.originalname, sha256: await fileDigest(file.path) } }
        : req.body;
      return this.service.begin(workspaceId, key, requestHash(req.method, req.path, content));
    })();
    return from(
      beginning.catch(async (err: unknown) => {
        await discardFile();
        throw err;
      }),
    ).pipe(
      mergeMap(async (begin) => {
        if (begin.kind === 'replay') {
          await discardFile();
          throw new ReplayedResponse(begin.status, begin.headers, begin.body);
        }
        return begin;
      }),
      mergeMap(() => {
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
