import { InjectQueue } from '@nestjs/bull';
import { Module, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bull';
import { QUEUES } from '@/common/queue/queues';
import { MessagingModule } from '../messaging.module';
import { MessagingProcessor } from './messaging.processor';

export const RECOVER_THREADS_EVERY_MS = 30_000;

/** The messaging processors, loaded only where workers run; schedules the inbound threads' recovery sweep once. */
@Module({ imports: [MessagingModule], providers: [MessagingProcessor] })
export class MessagingJobsModule implements OnApplicationBootstrap {
  constructor(@InjectQueue(QUEUES.messaging) private readonly queue: Queue) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.add(
      'recover-threads',
      {},
      { repeat: { every: RECOVER_THREADS_EVERY_MS }, jobId: 'recover-threads' },
    );
  }
}
