import { InjectQueue } from '@nestjs/bull';
import { Logger, Module, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bull';
import { QUEUES } from '@/common/queue/queues';
import { EventsModule } from '@/modules/events/events.module';
import { OutboxConsumers } from '@/modules/events/outbox-consumers';
import { FlowsModule } from '../flows.module';
import { FlowSchedules } from '../flow-schedules';
import { FlowsRepository } from '../flows.repository';
import { FlowDispatcher } from '../triggers/flow-dispatcher';
import { FlowsProcessor } from './flows.processor';
import { PURGE_EXECUTIONS_CRON, PurgeExecutionsProcessor } from './purge-executions.processor';

/**
 * Flow workers: the outbox consumer that turns events into executions (inside webhook delivery's claim), the
 * execution and cron processors, the cron ticks of deployed flows scheduled again at start (a lost tick job is
 * found here), and the nightly purge of executions past retention.
 */
@Module({
  imports: [FlowsModule, EventsModule],
  providers: [FlowsProcessor, PurgeExecutionsProcessor],
})
export class FlowsJobsModule implements OnApplicationBootstrap {
  private readonly logger = new Logger(FlowsJobsModule.name);

  constructor(
    private readonly consumers: OutboxConsumers,
    private readonly dispatcher: FlowDispatcher,
    private readonly flows: FlowsRepository,
    private readonly schedules: FlowSchedules,
    @InjectQueue(QUEUES.flows) private readonly queue: Queue,
    @InjectQueue(QUEUES.maintenance) private readonly maintenance: Queue,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.consumers.register(this.dispatcher);
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
