import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { AppException } from '@/common/errors/app.exception';
import { REDIS } from '@/common/redis/redis.module';
import { APP_CONFIG, AppConfig } from '@/config/app.config';

const WINDOW_SECONDS = 60;

/** Counts one hit in the key's current minute (shared by every replica); answers the count. */
const HIT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n
`;

/** Per client IP and minute, in Redis: web calls started and web call sockets opened (or their tokens checked). */
@Injectable()
export class WebCallLimits {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** `POST /web-calls` from this address: 429 RATE_LIMIT_EXCEEDED past the limit. */
  mint(ip: string): Promise<void> {
    return this.hit('mint', ip, this.config.limits.webCallMintsPerMinute);
  }

  /** A socket handshake or token check from this address: 429 RATE_LIMIT_EXCEEDED past the limit. */
  connect(ip: string): Promise<void> {
    return this.hit('connect', ip, this.config.limits.webCallConnectsPerMinute);
  }

  private async hit(kind: string, ip: string, limit: number): Promise<void> {
    const minute = Math.floor(Date.now() / 1000 / WINDOW_SECONDS);
    const count = (await this.redis.eval(
      HIT,
      1,
      `webcalls:${kind}:${ip}:${minute}`,
      WINDOW_SECONDS,
    )) as number;
    if (count > limit)
      throw new AppException(
        'RATE_LIMIT_EXCEEDED',
        `Too many web call ${kind === 'mint' ? 'starts' : 'connections'} from this address (${limit} a minute)`,
        { retryAfter: WINDOW_SECONDS - (Math.floor(Date.now() / 1000) % WINDOW_SECONDS) },
      );
  }
}
