import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { AppException } from '@/common/errors/app.exception';
import { SHORT_ERRORS_FOR, toAppException } from './exceptions.filter';
import { PROVIDER_HOOK } from './provider-hook';
import { BodyProblem } from './request-limits';
import { SHORT_ERROR_STATUSES } from './short-error-body';

export const ACCEPTS_MULTIPART = 'cap:accepts-multipart';
/** The route takes multipart/form-data (file uploads) instead of JSON. */
export const AcceptsMultipart = (): MethodDecorator => SetMetadata(ACCEPTS_MULTIPART, true);

export const ACCEPTS_FORM = 'cap:accepts-form';
/** The route takes application/x-www-form-urlencoded (provider hooks) instead of JSON. */
export const AcceptsForm = (): MethodDecorator & ClassDecorator => SetMetadata(ACCEPTS_FORM, true);

export const BODY_PARSE_ERROR = Symbol('cap:body-parse-error');
export type BodyRequest = Request & { [BODY_PARSE_ERROR]?: unknown };

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * Body problems are answered after the token, scope and rate limit, as the contract orders the checks: the JSON
 * parser only records its error, and this guard (registered last) raises it.
 */
@Injectable()
export class BodyGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    // Provider hooks read their own bytes: an unreadable body fails their signature check (401).
    if (this.reflector.getAllAndOverride<boolean>(PROVIDER_HOOK, [context.getHandler(), context.getClass()]))
      return true;
    const req = context.switchToHttp().getRequest<BodyRequest & { [SHORT_ERRORS_FOR]?: unknown }>();
    const statuses = this.reflector.getAllAndOverride<((status: number) => boolean) | undefined>(
      SHORT_ERROR_STATUSES,
      [context.getHandler(), context.getClass()],
    );
    if (statuses) req[SHORT_ERRORS_FOR] = (e: { status: number }) => statuses(e.status);
    const problem = req[BODY_PARSE_ERROR];
    if (problem !== undefined)
      throw problem instanceof BodyProblem ? problem.toAppException() : toAppException(problem);
    if (!WITH_BODY.has(req.method) || !hasBody(req)) return true;
    const type = (req.headers['content-type'] ?? '').toLowerCase();
    const multipart = this.reflector.get<boolean>(ACCEPTS_MULTIPART, context.getHandler());
    if (multipart && type.startsWith('multipart/form-data')) return true;
    const form = this.reflector.getAllAndOverride<boolean>(ACCEPTS_FORM, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (form && type.startsWith('application/x-www-form-urlencoded')) return true;
    if (!type.startsWith('application/json') && !/^application\/[a-z0-9.+-]*\+json/.test(type)) {
      const expected = multipart ? 'multipart/form-data' : 'application/json';
      throw new AppException('BAD_REQUEST', `Content-Type must be ${expected}`);
    }
    return true;
  }
}
