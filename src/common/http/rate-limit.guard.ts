import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import type Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { AppException } from '@/common/errors/app.exception';
import { IS_PUBLIC } from '@/common/auth/public.decorator';
import type { TenantRequest } from '@/common/auth/request-context';
import { REDIS } from '@/common/redis/redis.module';

const WINDOW_MS = 60_000;

/**
 * A sliding log in one sorted set per workspace, trimmed, counted and appended atomically in one script, with
 * Redis's own clock, so every replica shares one exact rolling minute.
 */
const SLIDING_WINDOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < limit then
  redis.call('ZADD', KEYS[1], now, now .. '-' .. ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  count = count + 1
  allowed = 1
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local first = now
if oldest[2] then first = tonumber(oldest[2]) end
return {allowed, count, first + window, now}
`;

type SlidingWindowRedis = Redis & {
  slidingWindow(
    key: string,
    windowMs: number,
    limit: number,
    nonce: string,
  ): Promise<[number, number, number, number]>;
};

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetAtMs: number;
  retryAfterSeconds: number;
}

@Injectable()
export class RateLimiter {
  private readonly redis: SlidingWindowRedis;
  /** Members of the log are unique across processes: a random prefix per process, then a counter. */
  private readonly nonce = randomBytes(6).toString('hex');
  private hits = 0;

  constructor(@Inject(REDIS) redis: Redis) {
    redis.defineCommand('slidingWindow', { numberOfKeys: 1, lua: SLIDING_WINDOW });
    this.redis = redis as SlidingWindowRedis;
  }

  async hit(key: string, limit: number): Promise<RateDecision> {
    const [allowed, count, resetAtMs, now] = await this.redis.slidingWindow(
      `rl:${key}`,
      WINDOW_MS,
      limit,
      `${this.nonce}${(++this.hits).toString(36)}`,
    );
    return {
      allowed: allowed === 1,
      limit,
      remaining: Math.max(0, limit - count),
      resetAtMs,
      retryAfterSeconds: Math.max(1, Math.ceil((resetAtMs - now) / 1000)),
    };
  }
}

/** 1000 requests per rolling minute per workspace; headers on every authenticated answer; 429 past it. */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly limiter: RateLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]))
      return true;
    const http = context.switchToHttp();
    const req = http.getRequest<TenantRequest>();
    if (!req.workspace) return true;
    const res = http.getResponse<Response>();
    const decision = await this.limiter.hit(req.workspace.id, this.config.limits.ratePerMinute);
    res.setHeader('X-RateLimit-Limit', String(decision.limit));
    res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
    res.setHeader('X-RateLimit-Reset', String(Math.ceil(decision.resetAtMs / 1000)));
    if (!decision.allowed) {
      throw new AppException(
        'RATE_LIMIT_EXCEEDED',
        `Rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.retryAfterSeconds} s`,
        { retryAfter: decision.retryAfterSeconds },
      );
    }
    return true;
  }
}
