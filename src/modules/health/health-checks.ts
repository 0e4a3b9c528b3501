import { Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { REDIS } from '@/common/redis/redis.module';

const withTimeout = <T>(p: Promise<T>, ms: number): Promise<T> =>
  Promise.race([
    p,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref()),
  ]);

export interface Readiness {
  status: 'ok' | 'unavailable';
  checks: Record<string, string>;
}

/** The readiness checks of a process (API or worker): PostgreSQL and Redis answer within 2 s each. */
@Injectable()
export class HealthChecks {
  constructor(
    private readonly db: DataSource,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  async ready(): Promise<Readiness> {
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
    return { status: ok ? 'ok' : 'unavailable', checks };
  }
}
