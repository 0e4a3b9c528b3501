import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import type { AuthContext } from '@/common/auth/request-context';
import { REDIS } from '@/common/redis/redis.module';
import type { WorkspaceId } from '@/common/auth/workspace-id';

/** How long an authenticated token is kept in a process at most (a lost revocation message lasts no longer). */
export const TOKEN_CACHE_MS = 10_000;
const MAX_ENTRIES = 10_000;

interface Entry {
  auth: AuthContext;
  /** When the token's use was last recorded (its `last_used_at`), in ms. */
  lastUsedAt: number | null;
  expires: number;
}

/**
 * Authenticated tokens kept in the process for up to TOKEN_CACHE_MS, so a request does not read its token from
 * PostgreSQL each time. A revocation is published on Redis and drops the token in every process at once; the cache
 * is used only while this process's subscription is up (it is emptied whenever the connection drops), so a
 * revocation message can only be missed by a process that is not using its cache. A read that overlaps a
 * revocation is not kept (a generation counter moves on every revocation).
 */
@Injectable()
export class TokenCache implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(TokenCache.name);
  private readonly entries = new Map<string, Entry>();
  private subscriber: Redis | null = null;
  private listening = false;
  private generation = 0;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private get channel(): string {
    return `${this.config.redis.prefix}:api-tokens:revoked`;
  }

  onModuleInit(): void {
    const sub = new Redis(this.config.redis.url, { maxRetriesPerRequest: null });
    sub.on('ready', () => {
      sub
        .subscribe(this.channel)
        .then(() => {
          this.forgetAll();
          this.listening = true;
        })
        .catch((err: Error) => this.logger.warn({ err: err.message }, 'token revocations: subscribe failed'));
    });
    sub.on('close', () => {
      this.listening = false;
      this.forgetAll();
    });
    sub.on('error', () => undefined); // reconnects by itself; the cache is off meanwhile
    sub.on('message', (_channel: string, tokenId: string) => this.forget(tokenId));
    this.subscriber = sub;
  }

  async onApplicationShutdown(): Promise<void> {
    this.listening = false;
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }

  /** The counter to pass back to `keep`: a read that started before a revocation is not kept. */
  mark(): number {
    return this.generation;
  }

  get(workspaceId: WorkspaceId, hash: string): Entry | null {
    if (!this.listening) return null;
    const key = `${workspaceId}:${hash}`;
    const hit = this.entries.get(key);
    if (!hit) return null;
    if (hit.expires <= Date.now()) {
      this.entries.delete(key);
      return null;
    }
    return hit;
  }

  keep(
    workspaceId: WorkspaceId,
    hash: string,
    auth: AuthContext,
    lastUsedAt: number | null,
    mark: number,
  ): void {
    if (!this.listening || mark !== this.generation) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(`${workspaceId}:${hash}`, { auth, lastUsedAt, expires: Date.now() + TOKEN_CACHE_MS });
  }

  /** After the revocation is committed: this process forgets the token now, the others when the message lands. */
  async revoked(tokenId: string): Promise<void> {
    this.forget(tokenId);
    await this.redis.publish(this.channel, tokenId);
  }

  private forget(tokenId: string): void {
    this.generation += 1;
    for (const [key, entry] of this.entries) if (entry.auth.tokenId === tokenId) this.entries.delete(key);
  }

  private forgetAll(): void {
    this.generation += 1;
    this.entries.clear();
  }
}
