import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { AppException } from '@/common/errors/app.exception';
import type { TenantRequest } from './request-context';
import { TenantResolver } from './tenancy';

/** Host → workspace. The tenant is the first DNS label of a host of the form `<label>.<SERVICE_DOMAIN>`. */
@Injectable()
export class TenantMiddleware implements NestMiddleware {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly workspaces: TenantResolver,
  ) {}

  tenantLabel(hostHeader: string | undefined): string | null {
    if (!hostHeader) return null;
    const host = hostHeader.toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
    const suffix = `.${this.config.serviceDomain}`;
    if (!host.endsWith(suffix)) return null;
    const label = host.slice(0, -suffix.length);
    return /^[a-z0-9](-?[a-z0-9])*$/.test(label) && label.length <= 63 ? label : null;
  }

  async use(req: TenantRequest, _res: Response, next: NextFunction): Promise<void> {
    try {
      const label = this.tenantLabel(req.headers.host);
      const workspace = label ? await this.workspaces.resolveTenant(label) : null;
      if (!workspace) return next(new AppException('RESOURCE_NOT_FOUND', 'Workspace not found'));
      req.workspace = workspace;
      next();
    } catch (err) {
      next(err);
    }
  }
}
