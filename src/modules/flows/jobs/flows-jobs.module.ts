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

/**
 * Flow workers: the outbox consumer that turns events into executions (inside webhook delivery's claim), the execution and cron processors, and the cron ticks of deployed flows scheduled
 * again at start (a lost tick job is found here).
 */
@Module({
  imports: [FlowsModule, EventsModule],
  providers: [FlowsProcessor],
})
export class FlowsJobsModule implements OnApplicationBootstrap {
  private readonly logger = new Logger(FlowsJobsModule.name);

  constructor(
    private readonly consumers: OutboxConsumers,
    private readonly dispatcher: FlowDispatcher,
    private readonly flows: FlowsRepository,
    private readonly schedules: FlowSchedules,
    @InjectQueue(QUEUES.flows) private readonly queue: Queue,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.consumers.register(this.dispatcher);
    await this.queue.add(
      'wake-queued',
      {},
      { repeat: { every: 5_000 }, jobId: 'flows-wake-queued', removeOnComplete: true },
    );
    for (const f of await this.flows.deployedSchedules())
      await this.schedules
        .scheduleNext(f.workspace_id, f.id, f.live_version, f.trigger_config ?? {})
        .catch((err: Error) =>
          this.logger.warn({ err: err.message, flowId: f.id }, 'cron tick not scheduled'),
        );
  }
}
