import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { AppException } from '@/common/errors/app.exception';

const digest = (v: string) => createHash('sha256').update(v).digest();

/** The internal module: `Authorization: Bearer <ADMIN_API_KEY>`. Without a configured key the prefix does not exist. */
@Injectable()
export class InternalAdminGuard implements CanActivate {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
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
