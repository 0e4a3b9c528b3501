import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '@/common/auth/public.decorator';
import { RawResponse } from '@/common/http/envelope';
import { HealthChecks, Readiness } from './health-checks';

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
  constructor(private readonly health: HealthChecks) {}

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
  async ready(@Res({ passthrough: true }) res: Response): Promise<Readiness> {
    const readiness = await this.health.ready();
    res.status(readiness.status === 'ok' ? 200 : 503);
    return readiness;
  }
}
