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
/** KEYS: lock, list; ARGV: token, lock ms. Extends the lock when still ours and answers the head (or nil). */
const HEAD = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return false end
redis.call('PEXPIRE', KEYS[1], ARGV[2]) return redis.call('LINDEX', KEYS[2], 0)`;
/** KEYS: lock, list; ARGV: token, lock ms. Removes the handled head, then as HEAD. */
const NEXT = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return false end
redis.call('LPOP', KEYS[2]) redis.call('PEXPIRE', KEYS[1], ARGV[2]) return redis.call('LINDEX', KEYS[2], 0)`;
/** KEYS: lock, list; ARGV: token. Releases the lock when still ours; answers the list's length. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return redis.call('LLEN', KEYS[2])`;
/**
 * KEYS: list, lock; ARGV: the message. Appends it; answers 1 when a drain job is owed: the list was empty, or no
 * drain holds the thread (a message left by a process that died between its push and its job is taken up too).
 */
const PUSH = `local n = redis.call('RPUSH', KEYS[1], ARGV[1])
if n == 1 or redis.call('EXISTS', KEYS[2]) == 0 then return 1 end return 0`;
/** KEYS: lock; ARGV: token, lock ms. Takes the lock (answers 0), else answers the holder's time left in ms. */
const ACQUIRE = `if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return 0 end
local ttl = redis.call('PTTL', KEYS[1]) if ttl < 1 then return 1 end return ttl`;

export const threadOf = (item: InboundItem): string =>
  `${item.channel}:${item.workspaceId ?? item.provider}:${item.to}:${item.from}`;

/**
 * Inbound messages of one thread (channel, our address, customer) in arrival order, one at a time across
 * processes: a hook appends to the thread's Redis list (RPUSH is the arrival order) and queues a `drain` job when
 * the list was empty or no drain holds the thread; a drain takes the thread's lock, handles the head, removes it, and goes on until the list is
 * empty, each step one Lua script (one round trip). A process that dies holding the lock leaves the head in place;
 * the lock expires and a delayed drain (scheduled by the drain that found the lock taken, or by Bull's recovery of
 * the stalled drain job) takes the thread up again.
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

  /**
   * Appends the message to its thread (one script); a drain job is queued when the list was empty or no drain holds
   * the thread. Otherwise the holder goes on to the end of the list (and looks again after releasing), and a drain
   * that found the lock taken has scheduled another at its expiry.
   */
  async push(item: InboundItem): Promise<void> {
    const thread = threadOf(item);
    const owed = await this.redis.eval(PUSH, 2, this.list(thread), this.lock(thread), JSON.stringify(item));
    if (owed === 1) await this.queue.add('drain', { thread });
  }

  /** The `drain` job: handles the thread's messages in order while holding its lock; no-op when another holds it. */
  async drain(thread: string, handle: (item: InboundItem) => Promise<unknown>): Promise<void> {
    for (;;) {
      const { token, ttl } = await this.acquire(thread);
      if (!token) return this.retryAfterLock(thread, ttl);
      let left = 0;
      try {
        await this.work(thread, token, handle);
      } finally {
        left = await this.release(thread, token);
      }
      // A message pushed while the lock was being released found a list that was not empty: look once more.
      if (left === 0) return;
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
    while (!(token = (await this.acquire(thread)).token)) {
      if (Date.now() > deadline) throw new Error('The conversation is busy');
      await new Promise((r) => setTimeout(r, WAIT_STEP_MS));
    }
    try {
      await this.work(thread, token, handle);
      return await fn();
    } finally {
      if ((await this.release(thread, token)) > 0) await this.queue.add('drain', { thread });
    }
  }

  /** The lock and a fresh token, or the holder's time left. One round trip. */
  private async acquire(thread: string): Promise<{ token: string | null; ttl: number }> {
    const token = randomUUID();
    const ttl = (await this.redis.eval(ACQUIRE, 1, this.lock(thread), token, String(LOCK_MS))) as number;
    return ttl === 0 ? { token, ttl } : { token: null, ttl };
  }

  /** Releases the lock when still ours; answers how many messages wait. One round trip. */
  private async release(thread: string, token: string): Promise<number> {
    return (await this.redis.eval(RELEASE, 2, this.lock(thread), this.list(thread), token)) as number;
  }

  /**
   * Handles the head, removes it and reads the next, one round trip per message (the lock extended each time). The
   * head is removed only after it was handled, so a process that dies on it leaves it for the next holder. A lock
   * lost (expired and taken) stops the loop without touching the list.
   */
  private async work(thread: string, token: string, handle: (item: InboundItem) => Promise<unknown>) {
    const keys = [this.lock(thread), this.list(thread)];
    let raw = (await this.redis.eval(HEAD, 2, ...keys, token, String(LOCK_MS))) as string | null;
    while (raw) {
      await this.handleOnce(JSON.parse(raw) as InboundItem, handle);
      raw = (await this.redis.eval(NEXT, 2, ...keys, token, String(LOCK_MS))) as string | null;
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
  private async retryAfterLock(thread: string, ttl: number): Promise<void> {
    const due = Math.ceil((Date.now() + ttl) / 1000);
    await this.queue.add('drain', { thread }, { delay: ttl + 100, jobId: `drain:${thread}:${due}` });
  }
}
