import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { REDIS } from '@/common/redis/redis.module';

export type LiveEventName = 'status' | 'transcript' | 'action' | 'end';
export interface LiveEvent {
  event: LiveEventName;
  data: unknown;
}
type Listener = (payload: never) => void;

/**
 * A call's live feed over Redis pub/sub, so any replica serves `GET /calls/{uuid}/live` whichever one changes the
 * call. One subscriber connection per process, shared by every listener; channels carry the deployment's prefix.
 */
@Injectable()
export class CallLive implements OnApplicationShutdown {
  private subscriber: Redis | null = null;
  private readonly listeners = new Map<string, Set<Listener>>();

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  channel(callId: string): string {
    return this.name(`call:${callId}:live`);
  }

  async publish(callId: string, event: LiveEventName, data: unknown): Promise<void> {
    await this.send(this.channel(callId), { event, data });
  }

  async send(channel: string, payload: unknown): Promise<void> {
    await this.redis.publish(channel, JSON.stringify(payload));
  }

  /** A channel name of this deployment (the client's `keyPrefix` applies to keys only, never to pub/sub channels). */
  name(suffix: string): string {
    return `${this.config.redis.prefix}:${suffix}`;
  }

  /** Listens to the call's feed; answers the function that stops listening. */
  listen(callId: string, listener: (e: LiveEvent) => void): Promise<() => Promise<void>> {
    return this.on(this.channel(callId), listener);
  }

  /** Listens to a channel of this deployment (JSON messages); answers the function that stops listening. */
  async on<T>(channel: string, listener: (payload: T) => void): Promise<() => Promise<void>> {
    const sub = this.connection();
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
      await sub.subscribe(channel);
    }
    set.add(listener as Listener);
    return async () => {
      const current = this.listeners.get(channel);
      current?.delete(listener as Listener);
      if (current && !current.size) {
        this.listeners.delete(channel);
        await sub.unsubscribe(channel).catch(() => undefined);
      }
    };
  }

  private connection(): Redis {
    if (this.subscriber) return this.subscriber;
    const sub = new Redis(this.config.redis.url, { maxRetriesPerRequest: null });
    sub.on('message', (channel: string, raw: string) => {
      const set = this.listeners.get(channel);
      if (!set) return;
      const parsed = JSON.parse(raw) as never;
      for (const l of set) l(parsed);
    });
    this.subscriber = sub;
    return sub;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }
}
