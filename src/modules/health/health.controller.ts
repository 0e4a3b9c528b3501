import { Controller, Get, HttpCode, Inject, Res } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiResponse, ApiTags } from '@nestjs/swagger';
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

const STATES = ['ok', 'unavailable'];

class LiveAnswer {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status!: string;
}

class ReadyChecks {
  @ApiProperty({ enum: STATES, example: 'ok' }) postgres!: string;
  @ApiProperty({ enum: STATES, example: 'ok' }) redis!: string;
}

class ReadyAnswer {
  @ApiProperty({ enum: STATES, example: 'ok' }) status!: string;
  @ApiProperty({ type: ReadyChecks }) checks!: ReadyChecks;
}

/** Liveness and readiness, without tenant or token, for load balancers and orchestrators. */
@ApiTags('Health')
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly db: DataSource,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'Liveness',
    description: 'The process answers; checks nothing else.',
    security: [],
  })
  @ApiResponse({ status: 200, description: 'Alive', type: LiveAnswer })
  @RawResponse()
  @HttpCode(200)
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({
    summary: 'Readiness',
    description: 'PostgreSQL and Redis both answer within 2 s; 503 otherwise, naming the failing check.',
    security: [],
  })
  @ApiResponse({ status: 200, description: 'Ready', type: ReadyAnswer })
  @ApiResponse({
    status: 503,
    description: 'A dependency is unavailable',
    type: ReadyAnswer,
    example: { status: 'unavailable', checks: { postgres: 'ok', redis: 'unavailable' } },
  })
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
