import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { REDIS } from '@/common/redis/redis.module';
import type { WorkspaceId } from '@/common/auth/workspace-id';

/**
 * Checks the workspace set and the number set and adds the call to both, atomically. A member already present is
 * a repeat and succeeds. Answers {1} or {0, which ('workspace' | 'number'), count}.
 */
const ACQUIRE = `
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return {1} end
local w = redis.call('ZCARD', KEYS[1])
if w >= tonumber(ARGV[3]) then return {0, 'workspace', w} end
if ARGV[5] == '1' then
  local n = redis.call('ZCARD', KEYS[2])
  if n >= tonumber(ARGV[4]) then return {0, 'number', n} end
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return {1}
`;

/**
 * Makes a set hold exactly the live calls PostgreSQL knows (ARGV[3..]), except members added within the grace
 * period (their row may not be committed yet). Answers how many members it removed.
 */
const REBUILD = `
local keep = {}
for i = 3, #ARGV do keep[ARGV[i]] = true end
local removed = 0
local members = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
for i = 1, #members, 2 do
  if not keep[members[i]] and tonumber(members[i + 1]) < tonumber(ARGV[1]) - tonumber(ARGV[2]) then
    redis.call('ZREM', KEYS[1], members[i])
    removed = removed + 1
  end
end
for i = 3, #ARGV do
  if not redis.call('ZSCORE', KEYS[1], ARGV[i]) then redis.call('ZADD', KEYS[1], ARGV[1], ARGV[i]) end
end
return removed
`;

export type SlotRefusal = { scope: 'workspace' | 'number'; count: number; limit: number };

const wsKey = (workspaceId: WorkspaceId) => `calls:slots:ws:${workspaceId}`;
const numberKey = (phoneNumberId: string) => `calls:slots:num:${phoneNumberId}`;
const REGISTRY = 'calls:slots:keys';

/** The live-call limits of every workspace and number, shared by every replica through Redis. */
@Injectable()
export class CallSlots {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get workspaceLimit(): number {
    return this.config.limits.maxConcurrentCalls;
  }

  /** Takes a slot for the call, or answers which limit refused it. */
  async acquire(
    workspaceId: WorkspaceId,
    callId: string,
    phoneNumberId: string | null,
    numberLimit = this.workspaceLimit,
  ): Promise<SlotRefusal | null> {
    const keys = [wsKey(workspaceId), phoneNumberId ? numberKey(phoneNumberId) : wsKey(workspaceId)];
    const result = (await this.redis.eval(
      ACQUIRE,
      2,
      ...keys,
      callId,
      Date.now(),
      this.workspaceLimit,
      numberLimit,
      phoneNumberId ? '1' : '0',
    )) as [number, string?, number?];
    if (result[0] === 1) {
      // The reconciler also walks sets that no live call names any more, so it remembers every key used.
      await this.redis.sadd(REGISTRY, keys[0], keys[1]);
      return null;
    }
    const scope = result[1] as 'workspace' | 'number';
    return { scope, count: result[2] ?? 0, limit: scope === 'workspace' ? this.workspaceLimit : numberLimit };
  }

  async release(workspaceId: WorkspaceId, callId: string, phoneNumberId: string | null): Promise<void> {
    const multi = this.redis.multi().zrem(wsKey(workspaceId), callId);
    if (phoneNumberId) multi.zrem(numberKey(phoneNumberId), callId);
    await multi.exec();
  }

  async count(workspaceId: WorkspaceId): Promise<number> {
    return this.redis.zcard(wsKey(workspaceId));
  }

  /**
   * Rebuilds every set from the live calls PostgreSQL holds, so slots a crashed replica took (or failed to
   * release) come back. Members younger than `graceMs` are kept: their call row may still be being written.
   */
  async rebuild(
    live: { workspace_id: WorkspaceId; id: string; phone_number_id: string | null }[],
    graceMs = 15_000,
  ): Promise<number> {
    const want = new Map<string, string[]>();
    const put = (key: string, id: string) => want.set(key, [...(want.get(key) ?? []), id]);
    for (const c of live) {
      put(wsKey(c.workspace_id), c.id);
      if (c.phone_number_id) put(numberKey(c.phone_number_id), c.id);
    }
    // The prefix-less names in the registry are what `eval` takes as keys (the client adds its prefix).
    const known = await this.redis.smembers(REGISTRY);
    const keys = new Set([...known, ...want.keys()]);
    let removed = 0;
    const now = Date.now();
    for (const key of keys) {
      removed += (await this.redis.eval(REBUILD, 1, key, now, graceMs, ...(want.get(key) ?? []))) as number;
      if (!want.has(key)) await this.redis.srem(REGISTRY, key);
    }
    return removed;
  }
}
