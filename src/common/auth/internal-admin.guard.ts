import {
  applyDecorators,
  CanActivate,
  ExecutionContext,
  Inject,
  Injectable,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { assertAdminKey } from './admin-key';
import { Public } from './public.decorator';

const IS_INTERNAL = 'cap:internal';

/** Routes of the internal module: the admin key instead of a tenant token. */
export const InternalOnly = (): ClassDecorator & MethodDecorator =>
  applyDecorators(SetMetadata(IS_INTERNAL, true), Public());

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
    assertAdminKey(
      context.switchToHttp().getRequest<Request>().headers.authorization,
      this.config.auth.adminApiKey,
    );
    return true;
  }
}
