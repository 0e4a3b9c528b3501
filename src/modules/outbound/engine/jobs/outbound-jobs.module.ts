import { InjectQueue } from '@nestjs/bull';
import { Module, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bull';
import { QUEUES } from '@/common/queue/queues';
import { OutboundModule } from '../../outbound.module';
import { DispatchWake } from './dispatch-wake';
import { OutboundProcessor, OutboundSlotsProcessor } from './outbound.processor';

export const DISPATCH_EVERY_MS = 2_000;

/**
 * The dispatcher, loaded only where workers run: a repeatable pass every 2 s plus wake-ups on commits, and the
 * campaign slot jobs queued when a campaign call ends.
 */
@Module({ imports: [OutboundModule], providers: [OutboundProcessor, OutboundSlotsProcessor, DispatchWake] })
export class OutboundJobsModule implements OnApplicationBootstrap {
  constructor(@InjectQueue(QUEUES.outbound) private readonly queue: Queue) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.add(
      'dispatch',
      {},
      {
        repeat: { every: DISPATCH_EVERY_MS },
        jobId: 'dispatch',
        removeOnComplete: true,
        removeOnFail: 100,
        attempts: 1,
      },
    );
  }
}
