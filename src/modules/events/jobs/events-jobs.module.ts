import { InjectQueue } from '@nestjs/bull';
import { Module, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bull';
import { QUEUES } from '@/common/queue/queues';
import { EventsModule } from '../events.module';
import { DeliverWebhookProcessor } from './deliver-webhook.processor';
import { OutboxListener } from './outbox-listener';
import { PurgeEventsProcessor } from './purge-events.processor';

export const PURGE_EVENTS_CRON = '37 3 * * *';

/**
 * Webhook delivery, loaded only where workers run: the outbox listener, the sweep, the delivery processor and the
 * nightly retention purge (scheduled once, as a repeatable job).
 */
@Module({
  imports: [EventsModule],
  providers: [DeliverWebhookProcessor, OutboxListener, PurgeEventsProcessor],
})
export class EventsJobsModule implements OnApplicationBootstrap {
  constructor(@InjectQueue(QUEUES.maintenance) private readonly queue: Queue) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.add(
      'purge-delivered-events',
      {},
      { repeat: { cron: PURGE_EVENTS_CRON }, jobId: 'purge-delivered-events' },
    );
  }
}
