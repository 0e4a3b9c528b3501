import { InjectQueue } from '@nestjs/bull';
import { Module, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bull';
import { QUEUES } from '@/common/queue/queues';
import { IdempotencyModule } from '../idempotency.module';
import { PurgeIdempotencyKeysProcessor } from './purge-idempotency-keys.processor';

export const PURGE_CRON = '17 3 * * *';

/** The processors of this module, loaded only where workers run; schedules the nightly purge once. */
@Module({ imports: [IdempotencyModule], providers: [PurgeIdempotencyKeysProcessor] })
export class IdempotencyJobsModule implements OnApplicationBootstrap {
  constructor(@InjectQueue(QUEUES.maintenance) private readonly queue: Queue) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.add(
      'purge-idempotency-keys',
      {},
      { repeat: { cron: PURGE_CRON }, jobId: 'purge-idempotency-keys' },
    );
  }
}
