import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { REDIS } from '@/common/redis/redis.module';

/** Deliveries a workspace may start per second, shared by every worker (the specification's limit). */
export const DELIVERIES_PER_SECOND = 100;
/** Deliveries a workspace may have on the wire at once, so one slow receiver cannot take every worker slot. */
export const MAX_IN_FLIGHT_PER_WORKSPACE = 20;
/** A slot held longer than this (a crashed worker) frees itself; above the 10 s request deadline. */
const SLOT_LEASE_MS = 30_000;

/*
 * KEYS[1] in-flight set (member: delivery id, score: lease end); KEYS[2] the workspace's start slots (member: one
 * attempt, score: its start time, past or booked ahead). ARGV: delivery id, attempt key, lease ms, max in flight,
 * max per second. Answers 0 when the attempt may start now (its in-flight slot is taken), else the wait in ms.
 *
 * A refused attempt books the earliest start that keeps every one-second window at the limit or under (100 after
 * the start 100 places back), so attempts start in arrival order and a waiting one is never overtaken by newcomers.
 * The clock is Redis's own, so every worker counts the same way.
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 100 end
local max = tonumber(ARGV[5])
local booked = redis.call('ZSCORE', KEYS[2], ARGV[2])
if booked then
  booked = tonumber(booked)
  if booked > now then return booked - now end
else
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - 1000)
  local n = redis.call('ZCARD', KEYS[2])
  local slot = now
  if n >= max then
    local e = redis.call('ZRANGE', KEYS[2], n - max, n - max, 'WITHSCORES')
    slot = math.max(now, tonumber(e[2]) + 1000)
  end
  redis.call('ZADD', KEYS[2], slot, ARGV[2])
  redis.call('PEXPIRE', KEYS[2], slot - now + 2000)
  if slot > now then return slot - now end
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) * 2)
return 0
`;

/**
 * The per-workspace delivery rate (100 a second) and in-flight cap, in Redis so that every worker process shares
 * them. A delivery that cannot start now is told how long to wait; nothing is dropped.
 */
@Injectable()
export class DeliveryThrottle {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  /**
   * 0 when attempt `attempt` of the delivery may start now (its in-flight slot is held until `release`), else
   * milliseconds to wait; calling again after the wait finds the start booked.
   */
  async acquire(workspaceId: string, deliveryId: string, attempt: number): Promise<number> {
    const wait = (await this.redis.eval(
      ACQUIRE,
      2,
      `webhooks:inflight:${workspaceId}`,
      `webhooks:starts:${workspaceId}`,
      deliveryId,
      `${deliveryId}:${attempt}`,
      SLOT_LEASE_MS,
      MAX_IN_FLIGHT_PER_WORKSPACE,
      DELIVERIES_PER_SECOND,
    )) as number;
    return wait;
  }

  async release(workspaceId: string, deliveryId: string): Promise<void> {
    await this.redis.zrem(`webhooks:inflight:${workspaceId}`, deliveryId);
  }
}
