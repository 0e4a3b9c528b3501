import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppException } from '@/common/errors/app.exception';
import { IS_PUBLIC } from './public.decorator';
import type { TenantRequest } from './request-context';
import { TokenAuthenticator } from './tenancy';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Bearer token of the request's workspace; `read` allows GET, `write` every other method. */
@Injectable()
export class ApiTokenGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: TokenAuthenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]))
      return true;
    const req = context.switchToHttp().getRequest<TenantRequest>();
    if (!req.workspace) throw new AppException('RESOURCE_NOT_FOUND', 'Workspace not found');
    const header = req.headers.authorization;
    if (header === undefined) throw new AppException('MISSING_AUTH_TOKEN', 'Authorization header is missing');
    const match = /^Bearer ([^\s]+)$/.exec(header.trim());
    if (!match) throw new AppException('INVALID_AUTH_TOKEN', 'Authorization header must be "Bearer <token>"');
    const auth = await this.tokens.authenticate(req.workspace.id, match[1]);
    if (!auth) throw new AppException('INVALID_AUTH_TOKEN', 'Invalid or revoked token');
    req.auth = auth;
    const needed = READ_METHODS.has(req.method) ? 'read' : 'write';
    if (!auth.scopes.includes(needed))
      throw new AppException(
        'FORBIDDEN',
        `This token lacks the ${needed} scope needed for ${req.method} requests`,
      );
    return true;
  }
}
