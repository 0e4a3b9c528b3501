import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { REDIS } from '@/common/redis/redis.module';
import { APP_CONFIG, AppConfig } from '@/config/app.config';

const OFFSET_KEY = 'outbound:clock-offset-ms';

/**
 * The outbound engine's notion of now: windows, due times, retries and expiry read it. Under `NODE_ENV=test` an
 * offset kept in Redis shifts it, so every replica of a deployment moves together; elsewhere it is the system clock
 * and no offset is read.
 */
@Injectable()
export class OutboundClock {
  private readonly controllable: boolean;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.controllable = config.nodeEnv === 'test';
  }

  async now(): Promise<number> {
    if (!this.controllable) return Date.now();
    const offset = Number((await this.redis.get(OFFSET_KEY)) ?? 0);
    return Date.now() + (Number.isFinite(offset) ? offset : 0);
  }

  /** Sets the offset so that now reads `at` (ms since the epoch); refused unless the clock is controllable. */
  async set(at: number): Promise<void> {
    if (!this.controllable) throw new Error('The outbound clock is not controllable in this deployment');
    await this.redis.set(OFFSET_KEY, String(at - Date.now()));
  }

  async reset(): Promise<void> {
    await this.redis.del(OFFSET_KEY);
  }
}
