import { Process, Processor } from '@nestjs/bull';
import type { Job } from 'bull';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { FlowsRepository } from '../flows.repository';
import { FlowExecutionsService } from '../flow-executions.service';
import { FlowRecovery } from '../flow-recovery';
import { FlowRunner } from '../flow-runner';
import { FlowSchedules } from '../flow-schedules';
import { UnitOfWork } from '@/common/persistence/unit-of-work';

type Jobs = JobPayloads['flows'];

@Processor(QUEUES.flows)
export class FlowsProcessor {
  constructor(
    private readonly runner: FlowRunner,
    private readonly recovery: FlowRecovery,
    private readonly schedules: FlowSchedules,
    private readonly flows: FlowsRepository,
    private readonly executions: FlowExecutionsService,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  @Process({ name: 'run-execution', concurrency: 32 })
  async run(job: Job<Jobs['run-execution']>): Promise<void> {
    await this.runner.run(job.data.workspaceId, job.data.executionId, job.data.resume === true);
  }

  /** Every 5 s: waiting executions with free slots get a run job; running ones nobody runs any more are handed back. */
  @Process({ name: 'wake-queued', concurrency: 1 })
  async wake(): Promise<void> {
    await this.runner.wakeStartable();
    await this.recovery.reclaim();
  }

  /** One cron time: the execution (once per time) and the next tick, while the flow is live on this version. */
  @Process({ name: 'cron-tick', concurrency: 4 })
  async tick(job: Job<Jobs['cron-tick']>): Promise<void> {
    const { workspaceId, flowId, version, fireAt } = job.data;
    const flow = await this.flows.findById(workspaceId, flowId);
    if (!flow || flow.status !== 'deployed' || flow.liveVersion !== version || flow.triggerKey !== 'schedule')
      return;
    const made = await this.unitOfWork.run((tx) =>
      this.executions.create(tx, workspaceId, [
        {
          flowId,
          version,
          trigger: { key: 'schedule', event_uuid: null, data: { fired_at: new Date(fireAt).toISOString() } },
          triggerRef: `cron:${fireAt}`,
          chain: [],
        },
      ]),
    );
    await Promise.all(made.map((id) => this.executions.enqueue(workspaceId, id)));
    await this.schedules.scheduleNext(
      workspaceId,
      flowId,
      version,
      flow.triggerConfig ?? {},
      Math.max(fireAt, Date.now()),
    );
  }
}
