import Bull from 'bull';
import Redis, { RedisOptions } from 'ioredis';
import { currentTraceId, currentTraceparent } from '@/common/telemetry/trace-context';
import { withSpan } from '@/common/telemetry/telemetry';
import { startTestTracing, type TestTracing } from '../../../test/support/tracing-harness';
import { traceBullJobs } from './job-tracing';

/** Each command Bull sent, with the trace current when it was sent. */
interface Sent {
  command: string;
  traceId: string | undefined;
  /** Sent while `queue.add` ran. */
  adding: boolean;
}

describe('Bull jobs under tracing', () => {
  let tracing: TestTracing;
  const sent: Sent[] = [];
  let adding = false;
  const queues: Bull.Queue[] = [];
  const clients: Redis[] = [];

  beforeAll(() => {
    tracing = startTestTracing();
    traceBullJobs();
  });

  afterAll(async () => {
    await Promise.all(queues.map((q) => q.close()));
    clients.forEach((c) => c.disconnect());
    tracing.stop();
  });

  /** A queue whose Redis connections note the trace current at each command sent. */
  const queue = (): Bull.Queue => {
    const q = new Bull(`job-tracing-${process.pid}-${Date.now()}`, {
      prefix: 'job-tracing-spec',
      createClient: (_type, options?: RedisOptions) => {
        const client = new Redis({
          host: '127.0.0.1',
          port: 6379,
          ...options,
          enableReadyCheck: false,
          maxRetriesPerRequest: null,
        });
        clients.push(client);
        const send = client.sendCommand.bind(client);
        client.sendCommand = ((command: { name: string }, ...rest: unknown[]) => {
          sent.push({ command: command.name, traceId: currentTraceId(), adding });
          return (send as (...a: unknown[]) => unknown)(command, ...rest);
        }) as typeof client.sendCommand;
        return client;
      },
    });
    queues.push(q);
    return q;
  };

  it("runs a job in the trace of the code that added it, and keeps Bull's own loops and timers out of that trace", async () => {
    const q = queue();
    let jobTrace: string | null = null;
    const processed = new Promise<void>((resolve) => {
      void q.process(async () => {
        jobTrace = currentTraceparent();
        resolve();
      });
    });
    // The first use of the queue's connections, and a delayed job, both inside the request's trace.
    const requestTrace = await withSpan(
      'request',
      {},
      async () => {
        adding = true;
        try {
          await q.add({ a: 1 }, { delay: 300 });
        } finally {
          adding = false;
        }
        return currentTraceId();
      },
      { root: true },
    );
    await processed;
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect(requestTrace).toMatch(/^[0-9a-f]{32}$/);
    expect(jobTrace).toContain(requestTrace);
    expect(sent.some((s) => s.adding && s.traceId === requestTrace)).toBe(true);
    // What Bull sent on its own (the delayed-job timer, the next job's fetch, the job's completion): no trace.
    const leaked = sent.filter((s) => !s.adding && s.traceId === requestTrace).map((s) => s.command);
    expect(leaked).toEqual([]);
    expect(tracing.exporter.getFinishedSpans().map((s) => s.name)).toEqual(
      expect.arrayContaining(['request', expect.stringMatching(/^job job-tracing-/)]),
    );
  });
});
