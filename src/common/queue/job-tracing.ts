/* eslint-disable @typescript-eslint/no-require-imports -- Bull is patched only when tracing is on */
import type { Job, JobOptions, Queue } from 'bull';
import { SpanAttributes, tracingEnabled, withSpan } from '@/common/telemetry/telemetry';
import { carriedTrace, carry } from '@/common/telemetry/trace-context';

type Handler = (job: Job) => unknown;
interface QueueProto {
  add(this: Queue, ...args: unknown[]): Promise<Job>;
  addBulk(this: Queue, jobs: Array<{ name?: string; data: unknown; opts?: JobOptions }>): Promise<Job[]>;
  setHandler(this: Queue, name: string, handler: unknown): void;
}

let patched = false;

const isPlain = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;

/** Ids in a job's payload, as span attributes (never anything else of the payload). */
const PAYLOAD_IDS: Record<string, string> = {
  workspaceId: 'workspace.id',
  callId: 'call.id',
  conversationId: 'conversation.id',
  agentId: 'agent.id',
  messageId: 'message.id',
  deliveryId: 'webhook.delivery.id',
  executionId: 'flow.execution.id',
};

function jobAttributes(queue: string, job: Job): SpanAttributes {
  const attributes: SpanAttributes = {
    'messaging.system': 'bull',
    'messaging.operation.type': 'process',
    'messaging.destination.name': queue,
    'job.name': job.name,
    'job.id': String(job.id),
    'job.attempt': job.attemptsMade + 1,
  };
  if (job.processedOn)
    attributes['job.wait_ms'] = Math.max(0, job.processedOn - job.timestamp - (job.opts.delay ?? 0));
  const data = job.data as Record<string, unknown> | undefined;
  for (const [field, name] of Object.entries(PAYLOAD_IDS))
    if (typeof data?.[field] === 'string') attributes[name] = data[field] as string;
  return attributes;
}

/**
 * Carries traces across Bull, in one place: a job added while a trace is current carries it in its data
 * (`_trace`, a W3C traceparent), and its run is a `job <queue>:<name>` span continuing that trace (a new trace when
 * it carried none), so a request, the jobs it queued and what they did are one trace. Runs of repeatable jobs (sweeps,
 * ticks) are not traced. Patches Bull's Queue once, when tracing starts; with tracing off Bull is left as it is.
 */
export function traceBullJobs(): void {
  if (patched || !tracingEnabled()) return;
  patched = true;
  const proto = (require('bull') as { prototype: QueueProto }).prototype;

  const add = proto.add;
  proto.add = function (this: Queue, ...args: unknown[]) {
    const at = typeof args[0] === 'string' ? 1 : 0;
    const opts = args[at + 1] as JobOptions | undefined;
    if (!opts?.repeat && isPlain(args[at])) args[at] = carry(args[at] as Record<string, unknown>);
    return add.apply(this, args);
  };

  const addBulk = proto.addBulk;
  proto.addBulk = function (this: Queue, jobs) {
    return addBulk.call(
      this,
      jobs.map((j) => (j.opts?.repeat || !isPlain(j.data) ? j : { ...j, data: carry(j.data) })),
    );
  };

  const setHandler = proto.setHandler;
  proto.setHandler = function (this: Queue, name: string, handler: unknown) {
    // Callback-style handlers (two parameters) and sandboxed processor files are left as they are.
    if (typeof handler !== 'function' || handler.length > 1) return setHandler.call(this, name, handler);
    const queue = this.name;
    const run = handler as Handler;
    const traced = function (this: unknown, job: Job) {
      if (job.opts.repeat) return run.call(this, job);
      const parent = carriedTrace(job.data);
      return withSpan(
        `job ${queue}:${job.name}`,
        () => jobAttributes(queue, job),
        () => run.call(this, job),
        {
          kind: 'consumer',
          parent,
          root: !parent,
        },
      );
    };
    return setHandler.call(this, name, traced);
  };
}
