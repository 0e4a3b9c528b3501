import { getQueueToken } from '@nestjs/bull';
import { BeforeApplicationShutdown, Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Job, Queue } from 'bull';
import type { Logger as Pino } from 'pino';
import { ROOT_LOGGER } from '@/common/logging/logging.module';
import { Metrics } from '@/common/metrics/metrics';
import { carriedTraceId } from '@/common/telemetry/trace-context';
import { QUEUES } from './queues';

/**
 * The fields of every job line: queue, job name and id, attempt, the workspace when the payload has one, and with
 * tracing on the trace the job continues (these lines are written outside the job's own context).
 */
function jobFields(queue: string, job: Job): Record<string, unknown> {
  const data = job.data as { workspaceId?: unknown } | undefined;
  return {
    queue,
    job: job.name,
    jobId: job.id,
    attempt: job.attemptsMade + 1,
    workspaceId: typeof data?.workspaceId === 'string' ? data.workspaceId : undefined,
    trace_id: carriedTraceId(data),
  };
}

/** A repeatable job (a sweep, a purge, the dispatcher's tick): Bull gives each of its runs `opts.repeat`. */
const periodic = (job: Job): boolean => !!job.opts.repeat;

/** Whether a job's result reports work done: a positive count in it (`{deleted: 3}`, `{resumed: 1}`) or `true`. */
export function reportsWork(result: unknown): boolean {
  if (typeof result === 'number') return result > 0;
  if (typeof result === 'boolean') return result;
  if (result && typeof result === 'object') return Object.values(result).some(reportsWork);
  return false;
}

/**
 * Logs and counts the life of every job of every queue in the table, in one place, from the queues' local events
 * (emitted in the process that runs the job): started, finished with its duration, failed with the reason, and
 * whether it is retried. A queue added to QUEUES gets it without code of its own. Runs of repeatable jobs are logged
 * at debug (an idle service would otherwise log a line a second), except a finish whose result reports work (info)
 * and a failure (warn).
 */
@Injectable()
export class JobLifecycle implements OnModuleInit, BeforeApplicationShutdown {
  /** Jobs running in this process and when each started (performance.now()). */
  private readonly running = new Map<Job, number>();

  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly metrics: Metrics,
    @Inject(ROOT_LOGGER) private readonly root: Pino,
  ) {}

  onModuleInit(): void {
    const log = this.root.child({ context: 'Jobs' });
    for (const name of Object.values(QUEUES)) {
      const queue = this.moduleRef.get<Queue>(getQueueToken(name), { strict: false });
      this.metrics.watchQueue(queue);
      queue.on('active', (job: Job) => {
        this.running.set(job, performance.now());
        log[periodic(job) ? 'debug' : 'info'](jobFields(name, job), 'job started');
      });
      queue.on('completed', (job: Job, result: unknown) => {
        const ms = this.finish(name, job, 'completed');
        const level = periodic(job) && !reportsWork(result) ? 'debug' : 'info';
        log[level]({ ...jobFields(name, job), durationMs: ms }, 'job finished');
      });
      queue.on('failed', (job: Job, err: Error) => {
        // Bull counts the attempt before the event; attempts left means the job is back in the queue.
        const retried = job.attemptsMade < (job.opts.attempts ?? 1) && !job.finishedOn;
        const ms = this.finish(name, job, retried ? 'retried' : 'failed');
        const fields = {
          ...jobFields(name, job),
          attempt: job.attemptsMade,
          durationMs: ms,
          reason: err?.message,
        };
        const level = periodic(job) ? 'warn' : 'info';
        if (retried) log[level](fields, 'job failed, will be retried');
        else log[level]({ ...fields, attempts: job.attemptsMade }, 'job failed');
      });
      queue.on('stalled', (job: Job) =>
        log.warn(jobFields(name, job), 'job stalled: its worker stopped; it runs again'),
      );
      // Without a listener a Redis outage would throw from the emitter; the connection retries by itself.
      queue.on('error', (err: Error) => log.warn({ queue: name, reason: err.message }, 'queue error'));
    }
  }

  /** Tells how many jobs the stop waits for (the queues close after every running job ends). */
  beforeApplicationShutdown(): void {
    if (this.running.size)
      this.root.info({ context: 'Jobs', running: this.running.size }, 'waiting for running jobs to finish');
  }

  private finish(queue: string, job: Job, outcome: 'completed' | 'failed' | 'retried'): number | undefined {
    const started = this.running.get(job);
    this.running.delete(job);
    this.metrics.jobs.inc({ queue, name: job.name, outcome });
    if (started === undefined) return undefined;
    const ms = performance.now() - started;
    this.metrics.jobDuration.observe({ queue, name: job.name }, ms / 1000);
    return Math.round(ms);
  }
}
