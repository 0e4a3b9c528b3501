import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '@/common/auth/public.decorator';
import { RawResponse } from '@/common/http/envelope';
import { HealthChecks, Readiness } from './health-checks';

/** Liveness and readiness, without tenant or token, for load balancers and orchestrators. */
@ApiExcludeController()
@Public()
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthChecks) {}

  @Get()
  @RawResponse()
  @HttpCode(200)
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('ready')
  @RawResponse()
  async ready(@Res({ passthrough: true }) res: Response): Promise<Readiness> {
    const readiness = await this.health.ready();
    res.status(readiness.status === 'ok' ? 200 : 503);
    return readiness;
  }
}
