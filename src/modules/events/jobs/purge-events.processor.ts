import { Process, Processor } from '@nestjs/bull';
import { Logger } from '@nestjs/common';
import type { Job } from 'bull';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { OutboxService } from '../outbox.service';

/** Events (and their deliveries and attempts) are kept this many days after dispatch. */
export const EVENT_RETENTION_DAYS = 30;

type Payload = JobPayloads['maintenance']['purge-delivered-events'];

/** Nightly: removes delivered events past their retention. Safe to run twice. */
@Processor(QUEUES.maintenance)
export class PurgeEventsProcessor {
  private readonly logger = new Logger(PurgeEventsProcessor.name);

  constructor(private readonly outbox: OutboxService) {}

  @Process('purge-delivered-events')
  async handle(job: Job<Payload>): Promise<{ deleted: number }> {
    const deleted = await this.outbox.purgeDelivered(
      job.data.olderThanDays ?? EVENT_RETENTION_DAYS,
      job.data.batchSize,
    );
    this.logger.log({ deleted, jobId: job.id }, 'purged delivered events past retention');
    return { deleted };
  }
}
