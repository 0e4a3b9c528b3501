import { Controller, Get, HttpCode, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import type Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { Public } from '@/common/auth/public.decorator';
import { RawResponse } from '@/common/http/envelope';
import { REDIS } from '@/common/redis/redis.module';

const withTimeout = <T>(p: Promise<T>, ms: number): Promise<T> =>
  Promise.race([
    p,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref()),
  ]);

/** Liveness and readiness, without tenant or token, for load balancers and orchestrators. */
@ApiExcludeController()
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly db: DataSource,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  @Get()
  @RawResponse()
  @HttpCode(200)
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('ready')
  @RawResponse()
  async ready(
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ status: string; checks: Record<string, string> }> {
    const check = async (fn: () => Promise<unknown>) => {
      try {
        await withTimeout(fn(), 2000);
        return 'ok';
      } catch {
        return 'unavailable';
      }
    };
    const checks = {
      postgres: await check(() => this.db.query('SELECT 1')),
      redis: await check(() => this.redis.ping()),
    };
    const ok = Object.values(checks).every((v) => v === 'ok');
    res.status(ok ? 200 : 503);
    return { status: ok ? 'ok' : 'unavailable', checks };
  }
}
