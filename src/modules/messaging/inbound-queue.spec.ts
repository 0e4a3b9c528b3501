import Redis from 'ioredis';
import { Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import { randomBytes } from 'node:crypto';
import { InboundItem, InboundQueue, threadOf } from './inbound-queue';

/** Drain jobs as the queue would receive them (name, thread, delay); the tests run them by hand. */
class RecordedQueue {
  readonly added: { thread: string; delay?: number; jobId?: string }[] = [];
  add(_name: string, data: { thread: string }, opts: { delay?: number; jobId?: string } = {}) {
    this.added.push({ thread: data.thread, delay: opts.delay, jobId: opts.jobId });
    return Promise.resolve();
  }
}

const item = (n: number, from = '+14155550101'): InboundItem => ({
  channel: 'sms',
  provider: 'twilio',
  to: '+16282000200',
  from,
  text: `msg ${n}`,
  messageType: 'text',
  providerMessageId: `SM${n}`,
  receivedAt: Date.now(),
});

describe('InboundQueue (against Redis)', () => {
  let redis: Redis;
  let jobs: RecordedQueue;
  let queue: InboundQueue;

  let errors: unknown[][];
  let warnings: unknown[][];

  beforeEach(() => {
    errors = [];
    warnings = [];
    jest.spyOn(Logger.prototype, 'error').mockImplementation((...args: unknown[]) => void errors.push(args));
    jest.spyOn(Logger.prototype, 'warn').mockImplementation((...args: unknown[]) => void warnings.push(args));
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', {
      keyPrefix: `spec-inbound-${randomBytes(4).toString('hex')}:`,
    });
    jobs = new RecordedQueue();
    queue = new InboundQueue(redis, jobs as unknown as Queue<{ thread: string }>);
  });
  afterEach(async () => {
    const keys = await redis.keys(`${redis.options.keyPrefix}*`);
    if (keys.length) await redis.del(...keys.map((k) => k.slice(redis.options.keyPrefix!.length)));
    redis.disconnect();
    jest.restoreAllMocks();
  });

  it('queues a drain when the thread is idle, none while a drain holds it; one drain handles all in order', async () => {
    const thread = threadOf(item(1));
    await queue.push(item(1));
    expect(jobs.added).toEqual([{ thread }]);
    const seen: string[] = [];
    await queue.drain(thread, async (i) => {
      seen.push(i.text);
      // Pushed while the drain holds the thread: the same drain goes on with them, no new job.
      if (i.text === 'msg 1') {
        await queue.push(item(2));
        await queue.push(item(3));
      }
    });
    expect(seen).toEqual(['msg 1', 'msg 2', 'msg 3']);
    expect(jobs.added).toHaveLength(1);
    expect(await redis.llen(`msg:inbox:{${thread}}`)).toBe(0);
    expect(await redis.exists(`msg:lock:{${thread}}`)).toBe(0);
    // Idle again: the next message queues a drain.
    await queue.push(item(4));
    expect(jobs.added).toHaveLength(2);
  });

  it('a message left without a drain (its process died before queueing one) is taken up by the next push', async () => {
    const thread = threadOf(item(1));
    // The dead process pushed msg 1 and never queued its drain.
    await redis.rpush(`msg:inbox:{${thread}}`, JSON.stringify(item(1)));
    await queue.push(item(2));
    expect(jobs.added).toEqual([{ thread }]);
    const seen: string[] = [];
    await queue.drain(thread, async (i) => void seen.push(i.text));
    expect(seen).toEqual(['msg 1', 'msg 2']);
  });

  it('a holder that died leaves its message in place; a drain scheduled at the lock expiry handles it', async () => {
    const thread = threadOf(item(1));
    // A process took the thread and died while handling msg 1: its lock expires on its own.
    await redis.set(`msg:lock:{${thread}}`, 'dead-token', 'PX', 300);
    await queue.push(item(1));
    await queue.push(item(2));
    expect(jobs.added).toHaveLength(1);
    const seen: string[] = [];
    const handle = async (i: InboundItem) => void seen.push(i.text);
    await queue.drain(thread, handle);
    expect(seen).toEqual([]);
    const retry = jobs.added[1];
    expect(retry.thread).toBe(thread);
    expect(retry.delay).toBeGreaterThan(0);
    expect(retry.delay).toBeLessThanOrEqual(400);
    await new Promise((r) => setTimeout(r, retry.delay));
    await queue.drain(thread, handle);
    expect(seen).toEqual(['msg 1', 'msg 2']);
  });

  it('two drains of one thread at once handle each message once, in arrival order', async () => {
    const thread = threadOf(item(1));
    for (let n = 1; n <= 20; n++) await queue.push(item(n));
    const seen: string[] = [];
    let inside = 0;
    const handle = async (i: InboundItem) => {
      inside += 1;
      expect(inside).toBe(1);
      await new Promise((r) => setTimeout(r, 2));
      seen.push(i.text);
      inside -= 1;
    };
    await Promise.all([queue.drain(thread, handle), queue.drain(thread, handle)]);
    expect(seen).toEqual(Array.from({ length: 20 }, (_, k) => `msg ${k + 1}`));
  });

  it('a message that keeps failing is skipped after three attempts and the thread goes on', async () => {
    const thread = threadOf(item(1));
    await queue.push(item(1));
    await queue.push(item(2));
    const attempts: string[] = [];
    await queue.drain(thread, async (i) => {
      attempts.push(i.text);
      if (i.text === 'msg 1') throw new Error('broken');
    });
    expect(attempts).toEqual(['msg 1', 'msg 1', 'msg 1', 'msg 2']);
    // The drop is logged with what finds the message again.
    expect(errors).toEqual([
      [
        { err: 'broken', providerMessageId: 'SM1', channel: 'sms' },
        'inbound message dropped after repeated failures',
      ],
    ]);
  });

  it('in a process that drains threads, a hook that finds the thread idle drains it there, in order, with no job', async () => {
    const seen: string[] = [];
    let inside = 0;
    queue.drainHere(async (i) => {
      inside += 1;
      expect(inside).toBe(1);
      await new Promise((r) => setTimeout(r, 5));
      seen.push(i.text);
      inside -= 1;
    });
    for (let n = 1; n <= 5; n++) await queue.push(item(n));
    await queue.beforeApplicationShutdown().catch(() => undefined);
    // Stopping ends each drain after the message in hand: what is left goes to a drain job.
    const thread = threadOf(item(1));
    const left = await redis.llen(`msg:inbox:{${thread}}`);
    expect(seen.length + left).toBe(5);
    expect(jobs.added).toEqual(left ? [{ thread }] : []);
    expect(await redis.exists(`msg:lock:{${thread}}`)).toBe(0);
    // Another process's drain job takes up the rest.
    const other = new InboundQueue(redis, jobs as unknown as Queue<{ thread: string }>);
    await other.drain(thread, async (i) => void seen.push(i.text));
    expect(seen).toEqual(['msg 1', 'msg 2', 'msg 3', 'msg 4', 'msg 5']);
  });

  it("runs a whole backlog in the hook's process and leaves the held index empty", async () => {
    const seen: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    queue.drainHere(async (i) => {
      if (i.text === 'msg 1') await gate;
      seen.push(i.text);
    });
    for (let n = 1; n <= 4; n++) await queue.push(item(n));
    release();
    const thread = threadOf(item(1));
    for (let k = 0; k < 100 && seen.length < 4; k++) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual(['msg 1', 'msg 2', 'msg 3', 'msg 4']);
    expect(jobs.added).toEqual([]);
    expect(await redis.exists(`msg:lock:{${thread}}`)).toBe(0);
    expect(await redis.zcard('msg:inbox-held')).toBe(0);
  });

  it('a thread left by a process that died while draining it in a hook is given a drain job by the recovery sweep', async () => {
    const thread = threadOf(item(1));
    // The dead process took the thread in its hook (noted in the held index) and never finished.
    await redis.rpush(`msg:inbox:{${thread}}`, JSON.stringify(item(1)));
    await redis.set(`msg:lock:{${thread}}`, 'dead-token', 'PX', 300);
    await redis.zadd('msg:inbox-held', Date.now() - 60_000, thread);
    expect(await queue.recover()).toBe(0); // still held
    await new Promise((r) => setTimeout(r, 350));
    expect(await queue.recover()).toBe(1);
    expect(jobs.added).toEqual([{ thread }]);
    expect(warnings).toEqual([[{ threads: 1 }, 'inbound threads left by a stopped process resumed']]);
    const seen: string[] = [];
    await queue.drain(thread, async (i) => void seen.push(i.text));
    expect(seen).toEqual(['msg 1']);
    // Emptied: the thread leaves the index, and the sweep finds nothing more.
    expect(await queue.recover()).toBe(0);
    expect(await redis.zcard('msg:inbox-held')).toBe(0);
  });
});
