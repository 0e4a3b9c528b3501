import { Process, Processor } from '@nestjs/bull';
import { Logger } from '@nestjs/common';
import type { Job } from 'bull';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { FlowExecutionsRepository } from '../executions.repository';

/** Nightly, after the other retention jobs. */
export const PURGE_EXECUTIONS_CRON = '27 4 * * *';
/** Executions are kept 30 days after they end (contract 13.5). */
export const EXECUTION_RETENTION_DAYS = 30;

type Payload = JobPayloads['maintenance']['purge-flow-executions'];

/** Flow executions past retention go, a batch at a time, with their step records. Safe to run twice. */
@Processor(QUEUES.maintenance)
export class PurgeExecutionsProcessor {
  private readonly logger = new Logger(PurgeExecutionsProcessor.name);

  constructor(private readonly executions: FlowExecutionsRepository) {}

  @Process('purge-flow-executions')
  async handle(job: Job<Payload>): Promise<{ deleted: number }> {
    const batch = job.data.batchSize ?? 5000;
    let deleted = 0;
    for (;;) {
      const n = await this.executions.purgeEndedBefore(EXECUTION_RETENTION_DAYS, batch);
      deleted += n;
      if (n < batch) break;
    }
    this.logger.log({ deleted, jobId: job.id }, 'purged flow executions past retention');
    return { deleted };
  }
}
