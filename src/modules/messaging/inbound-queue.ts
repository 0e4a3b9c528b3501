import { InjectQueue } from '@nestjs/bull';
import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import type Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { REDIS } from '@/common/redis/redis.module';
import { carriedTrace, carry, resumeTrace } from '@/common/telemetry/trace-context';
import type { MessagingChannel } from '@/providers/messaging/messaging.port';
import type { WorkspaceId } from '@/common/auth/workspace-id';

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
  workspaceId?: WorkspaceId;
  /** Meta's media id of an audio message (transcribed when speech to text is configured). */
  audioId?: string;
  receivedAt: number;
}

const LOCK_MS = 120_000;
const ITEM_ATTEMPTS = 3;
const WAIT_STEP_MS = 25;
/** Threads a process drains itself at most at once (beyond, the thread's drain is a Bull job as before). */
export const LOCAL_DRAINS = 16;
/** A thread drained in a process is looked at by the recovery sweep once it has been held this long. */
const RECOVER_AFTER_MS = 10_000;
const RECOVER_BATCH = 200;

/** The drain steps, each one round trip (ioredis sends each script's body once per connection, then its SHA). */
const SCRIPTS = {
  /** KEYS: lock, list; ARGV: token, lock ms. Extends the lock when still ours and answers the head (or nil). */
  msgInboxHead: {
    keys: 2,
    lua: `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return false end
redis.call('PEXPIRE', KEYS[1], ARGV[2]) return redis.call('LINDEX', KEYS[2], 0)`,
  },
  /** KEYS: lock, list; ARGV: token, lock ms. Removes the handled head, then as the head step. */
  msgInboxNext: {
    keys: 2,
    lua: `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return false end
redis.call('LPOP', KEYS[2]) redis.call('PEXPIRE', KEYS[1], ARGV[2]) return redis.call('LINDEX', KEYS[2], 0)`,
  },
  /**
   * KEYS: lock, list, held index; ARGV: token, thread. Releases the lock when still ours; answers the list's
   * length, and takes an emptied thread out of the index of threads held in processes.
   */
  msgInboxRelease: {
    keys: 3,
    lua: `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
local n = redis.call('LLEN', KEYS[2]) if n == 0 then redis.call('ZREM', KEYS[3], ARGV[2]) end return n`,
  },
  /**
   * KEYS: list, lock, held index; ARGV: the message, a token ('' when this process drains nothing itself), lock
   * ms, now ms, thread. Appends the message. With a token and the thread idle, takes the lock, notes the thread in
   * the index (the recovery sweep's, should this process die holding it) and answers the head to handle. Else
   * answers 1 when a drain job is owed (the list was empty, or no drain holds the thread: a message left by a
   * process that died between its push and its job is taken up too), 0 when the holder goes on to it.
   */
  msgInboxPush: {
    keys: 3,
    lua: `local n = redis.call('RPUSH', KEYS[1], ARGV[1])
if ARGV[2] ~= '' and redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3], 'NX') then
  redis.call('ZADD', KEYS[3], ARGV[4], ARGV[5]) return redis.call('LINDEX', KEYS[1], 0) end
if n == 1 or redis.call('EXISTS', KEYS[2]) == 0 then return 1 end return 0`,
  },
  /** KEYS: lock; ARGV: token, lock ms. Takes the lock (answers 0), else answers the holder's time left in ms. */
  msgInboxAcquire: {
    keys: 1,
    lua: `if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return 0 end
local ttl = redis.call('PTTL', KEYS[1]) if ttl < 1 then return 1 end return ttl`,
  },
  /**
   * KEYS: lock, list, held index; ARGV: thread. For the recovery sweep: 1 when the thread has messages and no
   * holder (its process died), 0 when held; an idle, empty thread leaves the index.
   */
  msgInboxOrphaned: {
    keys: 3,
    lua: `if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if redis.call('LLEN', KEYS[2]) > 0 then return 1 end redis.call('ZREM', KEYS[3], ARGV[1]) return 0`,
  },
} as const;
type ScriptName = keyof typeof SCRIPTS;
type ScriptCall = (...args: string[]) => Promise<unknown>;
type Handle = (item: InboundItem) => Promise<unknown>;

export const threadOf = (item: InboundItem): string =>
  `${item.channel}:${item.workspaceId ?? item.provider}:${item.to}:${item.from}`;

/**
 * Inbound messages of one thread (channel, our address, customer) in arrival order, one at a time across
 * processes: a hook appends to the thread's Redis list (RPUSH is the arrival order). In a process that runs the
 * messaging workers, a hook that finds the thread idle takes its lock in the same script and drains it right there,
 * after answering (no job); otherwise (a drain holds the thread, or this process drains no more threads) a `drain`
 * job is queued when the list was empty or no drain holds the thread. A drain takes the thread's lock, handles the
 * head, removes it, and goes on until the list is empty, each step one Lua script (one round trip). A process that
 * dies holding the lock leaves the head in place; the lock expires, then a delayed drain (scheduled by the drain
 * that found the lock taken, or by Bull's recovery of the stalled drain job) or, for a thread drained in the hook's
 * process, the recovery sweep (`recover`, every 30 s: threads held in processes are noted in a sorted set) takes the
 * thread up again.
 */
@Injectable()
export class InboundQueue implements BeforeApplicationShutdown {
  private readonly logger = new Logger(InboundQueue.name);
  /** Set where the messaging workers run: this process may drain threads itself. */
  private local: Handle | null = null;
  private readonly running = new Set<Promise<void>>();
  private stopping = false;
  private readonly scripts: Record<ScriptName, ScriptCall>;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @InjectQueue(QUEUES.messaging) private readonly queue: Queue<JobPayloads['messaging']['drain']>,
  ) {
    const commands = redis as unknown as Record<string, ScriptCall>;
    this.scripts = {} as Record<ScriptName, ScriptCall>;
    for (const [name, { keys, lua }] of Object.entries(SCRIPTS)) {
      if (typeof commands[name] !== 'function') redis.defineCommand(name, { numberOfKeys: keys, lua });
      this.scripts[name as ScriptName] = commands[name].bind(redis);
    }
  }

  private list = (thread: string) => `msg:inbox:{${thread}}`;
  private lock = (thread: string) => `msg:lock:{${thread}}`;
  private readonly held = 'msg:inbox-held';

  /** The messaging workers run here: hooks may drain idle threads in this process, with `handle`. */
  drainHere(handle: Handle): void {
    this.local = handle;
  }

  /**
   * Appends the message to its thread (one script). When the thread is idle and this process drains threads, the
   * same script takes its lock and the thread is drained here once the caller has answered; otherwise a drain job is
   * queued when the list was empty or no drain holds the thread (the holder goes on to the end of the list, and
   * looks again after releasing).
   */
  async push(item: InboundItem): Promise<void> {
    const thread = threadOf(item);
    const handle = this.local && !this.stopping && this.running.size < LOCAL_DRAINS ? this.local : null;
    const token = handle ? randomUUID() : '';
    const answer = await this.scripts.msgInboxPush(
      this.list(thread),
      this.lock(thread),
      this.held,
      JSON.stringify(carry(item)),
      token,
      String(LOCK_MS),
      String(Date.now()),
      thread,
    );
    if (typeof answer === 'string' && handle) this.drainLocally(thread, token, answer, handle);
    else if (answer === 1) await this.queue.add('drain', { thread });
  }

  /** The `drain` job: handles the thread's messages in order while holding its lock; no-op when another holds it. */
  async drain(thread: string, handle: Handle): Promise<void> {
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
      if (this.stopping) return void (await this.queue.add('drain', { thread }));
    }
  }

  /**
   * A thread whose lock the hook took: drained after the hook's answer is written. Stopping, it ends after the
   * message in hand and leaves the rest to a drain job (or, failing that, to the recovery sweep).
   */
  private drainLocally(thread: string, token: string, head: string, handle: Handle): void {
    const run = new Promise<void>((resolve) => setImmediate(resolve))
      .then(async () => {
        let left = 0;
        let held: string | null = token;
        let first: string | null = head;
        while (held) {
          try {
            await this.work(thread, held, handle, first);
          } finally {
            left = await this.release(thread, held);
          }
          if (left === 0) return;
          if (this.stopping) return void (await this.queue.add('drain', { thread }));
          // A message pushed while releasing: go on if the thread is still free (its holder goes on otherwise).
          held = (await this.acquire(thread)).token;
          first = null;
        }
      })
      .catch((err: Error) =>
        this.logger.error(
          { err: err.message, thread },
          'inbound drain stopped; the recovery sweep resumes it',
        ),
      )
      .finally(() => this.running.delete(run));
    this.running.add(run);
  }

  /** Stopping: hooks drain nothing more here; the running drains end after the message in hand. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.running]);
  }

  /**
   * The recovery sweep: threads a process took in a hook and held past RECOVER_AFTER_MS that have messages and no
   * holder any more (the process died) get a drain job. Answers how many.
   */
  async recover(now = Date.now()): Promise<number> {
    const threads = await this.redis.zrangebyscore(
      this.held,
      '-inf',
      now - RECOVER_AFTER_MS,
      'LIMIT',
      0,
      RECOVER_BATCH,
    );
    let queued = 0;
    for (const thread of threads) {
      const orphaned = await this.scripts.msgInboxOrphaned(
        this.lock(thread),
        this.list(thread),
        this.held,
        thread,
      );
      if (orphaned !== 1) continue;
      await this.queue.add('drain', { thread });
      queued++;
    }
    if (queued) this.logger.warn({ threads: queued }, 'inbound threads left by a stopped process resumed');
    return queued;
  }

  /**
   * Runs `fn` in the thread's turn (the sandbox simulation answers synchronously): waits for the lock, handles
   * what arrived before, then `fn`.
   */
  async exclusive<R>(thread: string, handle: Handle, fn: () => Promise<R>): Promise<R> {
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
    const ttl = (await this.scripts.msgInboxAcquire(this.lock(thread), token, String(LOCK_MS))) as number;
    return ttl === 0 ? { token, ttl } : { token: null, ttl };
  }

  /** Releases the lock when still ours; answers how many messages wait. One round trip. */
  private async release(thread: string, token: string): Promise<number> {
    return (await this.scripts.msgInboxRelease(
      this.lock(thread),
      this.list(thread),
      this.held,
      token,
      thread,
    )) as number;
  }

  /**
   * Handles the head (`head` when the caller read it already), removes it and reads the next, one round trip per
   * message (the lock extended each time). The head is removed only after it was handled, so a process that dies
   * on it leaves it for the next holder. A lock lost (expired and taken) stops the loop without touching the list;
   * so does stopping, after the message in hand.
   */
  private async work(thread: string, token: string, handle: Handle, head: string | null = null) {
    const keys = [this.lock(thread), this.list(thread)];
    let raw = head ?? ((await this.scripts.msgInboxHead(...keys, token, String(LOCK_MS))) as string | null);
    while (raw) {
      await this.handleOnce(JSON.parse(raw) as InboundItem, handle);
      if (this.stopping) {
        await this.scripts.msgInboxNext(...keys, token, String(LOCK_MS));
        return;
      }
      raw = (await this.scripts.msgInboxNext(...keys, token, String(LOCK_MS))) as string | null;
    }
  }

  /** A message that keeps failing is logged and skipped after a few attempts, so its thread goes on. */
  private async handleOnce(item: InboundItem, handle: Handle): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await resumeTrace(carriedTrace(item), () => handle(item)); // in the trace of the hook that took it
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
