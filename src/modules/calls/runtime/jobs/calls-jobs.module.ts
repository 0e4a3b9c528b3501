import { InjectQueue } from '@nestjs/bull';
import { Module, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bull';
import { QUEUES } from '@/common/queue/queues';
import { CallsModule } from '../../calls.module';
import { CallsProcessor } from './calls.processor';

export const RECONCILE_EVERY_MS = 30_000;

/** The calls processors, loaded only where workers run; schedules the concurrency reconciler once. */
@Module({ imports: [CallsModule], providers: [CallsProcessor] })
export class CallsJobsModule implements OnApplicationBootstrap {
  constructor(@InjectQueue(QUEUES.calls) private readonly queue: Queue) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.add(
      'reconcile-slots',
      {},
      { repeat: { every: RECONCILE_EVERY_MS }, jobId: 'reconcile-slots' },
    );
  }
}
