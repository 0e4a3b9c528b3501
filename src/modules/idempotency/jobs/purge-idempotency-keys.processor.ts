import { Process, Processor } from '@nestjs/bull';
import { Logger } from '@nestjs/common';
import type { Job } from 'bull';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { IdempotencyService } from '../idempotency.service';

type Payload = JobPayloads['maintenance']['purge-idempotency-keys'];

/** Nightly: deletes idempotency keys older than 24 hours. Safe to run twice. */
@Processor(QUEUES.maintenance)
export class PurgeIdempotencyKeysProcessor {
  private readonly logger = new Logger(PurgeIdempotencyKeysProcessor.name);

  constructor(private readonly service: IdempotencyService) {}

  @Process('purge-idempotency-keys')
  async handle(job: Job<Payload>): Promise<{ deleted: number }> {
    const deleted = await this.service.purgeExpired(job.data.batchSize ?? 1000);
    this.logger.log({ deleted, jobId: job.id }, 'purged expired idempotency keys');
    return { deleted };
  }
}
