import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import type Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { REDIS } from '@/common/redis/redis.module';
import type { MessagingChannel } from '@/providers/messaging/messaging.port';

/** An inbound message as a hook received it, before routing (the workspace is found from `to`). */
export interface InboundItem {
  channel: MessagingChannel;
  /** `twilio`, `meta` or `sandbox`. */
  provider: string;
  /** Our side: the E.164 number (SMS, sandbox), Meta's phone_number_id (WhatsApp) or the page id. */
  to: string;
  /** The customer: E.164, or the page-scoped id on Messenger and Instagram. */
  from: string;
  text: string;
  messageType: string;
  providerMessageId: string;
  /** Set by the sandbox simulation, whose workspace is the caller's. */
  workspaceId?: string;
  /** Meta's media id of an audio message (transcribed when speech to text is configured). */
  audioId?: string;
  receivedAt: number;
}

const LOCK_MS = 120_000;
const ITEM_ATTEMPTS = 3;
const WAIT_STEP_MS = 25;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
const EXTEND = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;

export const threadOf = (item: InboundItem): string =>
  `${item.channel}:${item.workspaceId ?? item.provider}:${item.to}:${item.from}`;

/**
 * Inbound messages of one thread (channel, our address, customer) in arrival order, one at a time across
 * processes: a hook appends to the thread's Redis list (RPUSH is the arrival order) and queues a `drain` job; a
 * drain takes the thread's lock, handles the head, removes it, and goes on until the list is empty. A process that
 * dies holding the lock leaves the head in place; the lock expires and a delayed drain takes the thread up again.
 */
@Injectable()
export class InboundQueue {
  private readonly logger = new Logger(InboundQueue.name);

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @InjectQueue(QUEUES.messaging) private readonly queue: Queue<JobPayloads['messaging']['drain']>,
  ) {}

  private list = (thread: string) => `msg:inbox:{${thread}}`;
  private lock = (thread: string) => `msg:lock:{${thread}}`;

  async push(item: InboundItem): Promise<void> {
    const thread = threadOf(item);
    await this.redis.rpush(this.list(thread), JSON.stringify(item));
    await this.queue.add('drain', { thread });
  }

  /** The `drain` job: handles the thread's messages in order while holding its lock; no-op when another holds it. */
  async drain(thread: string, handle: (item: InboundItem) => Promise<unknown>): Promise<void> {
    for (;;) {
      const token = await this.acquire(thread);
      if (!token) return this.retryAfterLock(thread);
      try {
        await this.work(thread, token, handle);
      } finally {
        await this.redis.eval(RELEASE, 1, this.lock(thread), token);
      }
      // A message pushed while the lock was being released finds its drain job gone: look once more.
      if ((await this.redis.llen(this.list(thread))) === 0) return;
    }
  }

  /**
   * Runs `fn` in the thread's turn (the sandbox simulation answers synchronously): waits for the lock, handles
   * what arrived before, then `fn`.
   */
  async exclusive<R>(
    thread: string,
    handle: (item: InboundItem) => Promise<unknown>,
    fn: () => Promise<R>,
  ): Promise<R> {
    let token: string | null = null;
    const deadline = Date.now() + LOCK_MS;
    while (!(token = await this.acquire(thread))) {
      if (Date.now() > deadline) throw new Error('The conversation is busy');
      await new Promise((r) => setTimeout(r, WAIT_STEP_MS));
    }
    try {
      await this.work(thread, token, handle);
      return await fn();
    } finally {
      await this.redis.eval(RELEASE, 1, this.lock(thread), token);
      if ((await this.redis.llen(this.list(thread))) > 0) await this.queue.add('drain', { thread });
    }
  }

  private async acquire(thread: string): Promise<string | null> {
    const token = randomUUID();
    const ok = await this.redis.set(this.lock(thread), token, 'PX', LOCK_MS, 'NX');
    return ok ? token : null;
  }

  private async work(thread: string, token: string, handle: (item: InboundItem) => Promise<unknown>) {
    for (;;) {
      const raw = await this.redis.lindex(this.list(thread), 0);
      if (raw === null) return;
      await this.redis.eval(EXTEND, 1, this.lock(thread), token, String(LOCK_MS));
      await this.handleOnce(JSON.parse(raw) as InboundItem, handle);
      await this.redis.lpop(this.list(thread));
    }
  }

  /** A message that keeps failing is logged and skipped after a few attempts, so its thread goes on. */
  private async handleOnce(
    item: InboundItem,
    handle: (item: InboundItem) => Promise<unknown>,
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await handle(item);
        return;
      } catch (err) {
        if (attempt >= ITEM_ATTEMPTS) {
          this.logger.error(
            { err: (err as Error).message, providerMessageId: item.providerMessageId, channel: item.channel },
            'inbound message dropped after repeated failures',
          );
          return;
        }
      }
    }
  }

  /** The lock is held: if its holder died, its expiry lets a delayed drain take the thread up. */
  private async retryAfterLock(thread: string): Promise<void> {
    const ttl = await this.redis.pttl(this.lock(thread));
    if (ttl <= 0) return;
    const due = Math.ceil((Date.now() + ttl) / 1000);
    await this.queue.add('drain', { thread }, { delay: ttl + 100, jobId: `drain:${thread}:${due}` });
  }
}
