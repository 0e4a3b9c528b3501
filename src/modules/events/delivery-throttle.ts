import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { REDIS } from '@/common/redis/redis.module';
import type { WorkspaceId } from '@/common/auth/workspace-id';

/** Deliveries a workspace may start per second, shared by every worker (the specification's limit). */
export const DELIVERIES_PER_SECOND = 100;
/** Deliveries a workspace may have on the wire at once, so one slow receiver cannot take every worker slot. */
export const MAX_IN_FLIGHT_PER_WORKSPACE = 20;
/** How long a delivery refused by the per-second rate may wait in its worker before going back to the queue. */
const LOCAL_WAIT_MS = 2_000;
/** Deliveries of one workspace waiting in one process at once, so waiting never takes most worker slots. */
const LOCAL_WAITERS_PER_WORKSPACE = 8;
/** A slot held longer than this (a crashed worker) frees itself; above the 10 s request deadline. */
const SLOT_LEASE_MS = 30_000;

/*
 * KEYS[1] in-flight set (member: delivery id, score: lease end), KEYS[2] log of the starts of the last second
 * (a sliding window, so no stretch of one second ever holds more than the limit).
 * ARGV: delivery id, lease ms, max in flight, max per second. Answers 0 when the slot is taken, else the wait in ms.
 * The clock is Redis's own, so every worker counts the same way.
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 100 end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - 1000)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return math.max(1, tonumber(oldest[2]) + 1000 - now + 1)
end
redis.call('ZADD', KEYS[2], now, ARGV[1] .. ':' .. now)
redis.call('PEXPIRE', KEYS[2], 2000)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
return 0
`;

/**
 * The per-workspace delivery rate (100 a second) and in-flight cap, in Redis so that every worker process shares
 * them. A delivery that cannot start now is told how long to wait; nothing is dropped.
 */
@Injectable()
export class DeliveryThrottle {
  private readonly waiters = new Map<string, number>();

  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  /** 0 when the delivery may start now (its slot is held until `release`), else milliseconds to wait. */
  async acquire(workspaceId: WorkspaceId, deliveryId: string): Promise<number> {
    const wait = (await this.redis.eval(
      ACQUIRE,
      2,
      `webhooks:inflight:${workspaceId}`,
      `webhooks:rate:${workspaceId}`,
      deliveryId,
      SLOT_LEASE_MS,
      MAX_IN_FLIGHT_PER_WORKSPACE,
      DELIVERIES_PER_SECOND,
    )) as number;
    return wait;
  }

  /**
   * Like `acquire`, but a short wait for the per-second rate is spent here rather than in a round trip through the
   * delayed queue (which would wake every waiting delivery at once and send most of them back again). Only a few
   * deliveries of a workspace wait per process; the rest, and longer waits, answer the wait to the caller.
   */
  async acquireSoon(workspaceId: WorkspaceId, deliveryId: string): Promise<number> {
    let wait = await this.acquire(workspaceId, deliveryId);
    const waiting = this.waiters.get(workspaceId) ?? 0;
    if (wait === 0 || waiting >= LOCAL_WAITERS_PER_WORKSPACE) return wait;
    this.waiters.set(workspaceId, waiting + 1);
    try {
      const until = Date.now() + LOCAL_WAIT_MS;
      while (wait > 0 && Date.now() + wait <= until) {
        await new Promise((r) => setTimeout(r, wait + Math.floor(Math.random() * 5)));
        wait = await this.acquire(workspaceId, deliveryId);
      }
      return wait;
    } finally {
      const left = (this.waiters.get(workspaceId) ?? 1) - 1;
      if (left > 0) this.waiters.set(workspaceId, left);
      else this.waiters.delete(workspaceId);
    }
  }

  async release(workspaceId: WorkspaceId, deliveryId: string): Promise<void> {
    await this.redis.zrem(`webhooks:inflight:${workspaceId}`, deliveryId);
  }
}
