import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '@/config/app.config';

export const REDIS = Symbol('REDIS');

/** Closes the shared connection when the application stops. */
@Injectable()
class RedisCloser implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}
  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/** One shared ioredis client for rate limits, caches and throttles (queues open their own). */
@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        new Redis(config.redis.url, {
          keyPrefix: `${config.redis.prefix}:`,
          maxRetriesPerRequest: 3,
          // Commands issued in the same tick (the rate-limit checks of concurrent requests) share one write.
          enableAutoPipelining: true,
        }),
    },
    RedisCloser,
  ],
  exports: [REDIS],
})
export class RedisModule {}
