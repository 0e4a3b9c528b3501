import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import { parseExpression } from 'cron-parser';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { FlowClock } from './flow-clock';

type Tick = JobPayloads['flows']['cron-tick'];

/**
 * Cron triggers as a chain of Bull delayed jobs, one per cron time: each tick queues its execution and the next
 * tick. The job id is the flow, version and time, so replicas and restarts never double a tick. (Bull's own
 * repeatable jobs read the process clock; this chain reads FlowClock, which tests can move.)
 */
@Injectable()
export class FlowSchedules {
  constructor(
    @InjectQueue(QUEUES.flows) private readonly queue: Queue<Tick>,
    private readonly clock: FlowClock,
  ) {}

  /** The first cron time after `after` (ms), in the trigger's time zone. */
  nextTime(config: Record<string, unknown>, after: number): number {
    const it = parseExpression(String(config.cron), {
      currentDate: new Date(after),
      tz: typeof config.timezone === 'string' ? config.timezone : 'UTC',
    });
    return it.next().getTime();
  }

  /** Queues the next tick of a deployed cron flow after `after` (default: now on the flow clock). */
  async scheduleNext(
    workspaceId: WorkspaceId,
    flowId: string,
    version: number,
    config: Record<string, unknown>,
    after = this.clock.now(),
  ): Promise<void> {
    const fireAt = this.nextTime(config, after);
    await this.queue.add(
      'cron-tick',
      { workspaceId, flowId, version, fireAt },
      {
        jobId: `cron:${flowId}:${version}:${fireAt}`,
        delay: Math.max(0, fireAt - this.clock.now()),
        attempts: 3,
        removeOnComplete: true,
        removeOnFail: 100,
      },
    );
  }
}
