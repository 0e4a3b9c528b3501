import {
  applyDecorators,
  CanActivate,
  ExecutionContext,
  Inject,
  Injectable,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { AppException } from '@/common/errors/app.exception';
import { Public } from './public.decorator';

const IS_INTERNAL = 'cap:internal';

/** Routes of the internal module: the admin key instead of a tenant token. */
export const InternalOnly = (): ClassDecorator & MethodDecorator =>
  applyDecorators(SetMetadata(IS_INTERNAL, true), Public());

const digest = (v: string) => createHash('sha256').update(v).digest();

/**
 * The internal module: `Authorization: Bearer <ADMIN_API_KEY>`. Without a configured key the prefix does not exist.
 * A global guard registered first, so the key is checked before anything about the body.
 */
@Injectable()
export class InternalAdminGuard implements CanActivate {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly reflector: Reflector,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (!this.reflector.getAllAndOverride<boolean>(IS_INTERNAL, [context.getHandler(), context.getClass()]))
      return true;
    const key = this.config.auth.adminApiKey;
    if (!key) throw new AppException('ENDPOINT_NOT_FOUND', 'Endpoint not found');
    const header = context.switchToHttp().getRequest<Request>().headers.authorization;
    if (header === undefined) throw new AppException('MISSING_AUTH_TOKEN', 'Authorization header is missing');
    const match = /^Bearer (\S+)$/.exec(header.trim());
    if (!match || !timingSafeEqual(digest(match[1]), digest(key)))
      throw new AppException('INVALID_AUTH_TOKEN', 'Invalid admin key');
    return true;
  }
}
