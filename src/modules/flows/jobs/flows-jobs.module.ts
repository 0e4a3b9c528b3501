import { InjectQueue } from '@nestjs/bull';
import { Logger, Module, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bull';
import { QUEUES } from '@/common/queue/queues';
import { FlowsModule } from '../flows.module';
import { FlowSchedules } from '../flow-schedules';
import { FlowsRepository } from '../flows.repository';
import { FlowsProcessor } from './flows.processor';
import { PURGE_EXECUTIONS_CRON, PurgeExecutionsProcessor } from './purge-executions.processor';

/**
 * Flow workers: the execution and cron processors, the cron ticks of deployed flows scheduled again at start (a lost
 * tick job is found here), and the nightly purge of executions past retention. Events become executions in
 * `FlowDispatcher`, bound to the events module's `OUTBOX_CONSUMERS` port, inside webhook delivery's claim (which
 * runs where the workers run).
 */
@Module({
  imports: [FlowsModule],
  providers: [FlowsProcessor, PurgeExecutionsProcessor],
})
export class FlowsJobsModule implements OnApplicationBootstrap {
  private readonly logger = new Logger(FlowsJobsModule.name);

  constructor(
    private readonly flows: FlowsRepository,
    private readonly schedules: FlowSchedules,
    @InjectQueue(QUEUES.flows) private readonly queue: Queue,
    @InjectQueue(QUEUES.maintenance) private readonly maintenance: Queue,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.add(
      'wake-queued',
      {},
      { repeat: { every: 5_000 }, jobId: 'flows-wake-queued', removeOnComplete: true },
    );
    await this.maintenance.add(
      'purge-flow-executions',
      {},
      { repeat: { cron: PURGE_EXECUTIONS_CRON }, jobId: 'purge-flow-executions' },
    );
    for (const f of await this.flows.deployedSchedules())
      await this.schedules
        .scheduleNext(f.workspace_id, f.id, f.live_version, f.trigger_config ?? {})
        .catch((err: Error) =>
          this.logger.warn({ err: err.message, flowId: f.id }, 'cron tick not scheduled'),
        );
  }
}
