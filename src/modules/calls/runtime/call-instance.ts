import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { REDIS } from '@/common/redis/redis.module';

const HEARTBEAT_MS = 2_000;
const ALIVE_TTL_MS = 6_000;

/**
 * This process as an owner of calls: an id and a heartbeat key in Redis. A call whose owner's key has expired
 * belongs to a dead replica and is taken over by whichever replica next needs to act on it.
 */
@Injectable()
export class CallInstance implements OnModuleInit, OnApplicationShutdown {
  readonly id = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private timer: NodeJS.Timeout | null = null;

  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async onModuleInit(): Promise<void> {
    await this.beat();
    // A liveness signal, not a scheduled piece of work: losing it with the process is its purpose.
    this.timer = setInterval(() => void this.beat().catch(() => undefined), HEARTBEAT_MS);
    this.timer.unref();
  }

  async isAlive(instanceId: string | null): Promise<boolean> {
    if (!instanceId) return false;
    if (instanceId === this.id) return true;
    return (await this.redis.exists(this.heartbeatKey(instanceId))) === 1;
  }

  /** The key that exists while the instance is alive (without the client's key prefix, which ioredis adds). */
  heartbeatKey(instanceId: string): string {
    return `calls:instance:${instanceId}`;
  }

  private async beat(): Promise<void> {
    await this.redis.set(this.heartbeatKey(this.id), '1', 'PX', ALIVE_TTL_MS);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.redis.del(this.heartbeatKey(this.id)).catch(() => undefined);
  }
}
