import { InjectQueue, Process, Processor } from '@nestjs/bull';
import { Inject, Logger, Module, OnApplicationBootstrap } from '@nestjs/common';
import type { Job, Queue } from 'bull';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { LogsModule } from '../logs.module';
import { RequestLogsRepository } from '../request-logs.repository';

export const PURGE_LOGS_CRON = '47 3 * * *';

type Payload = JobPayloads['maintenance']['purge-logs'];

/** Nightly: request and action log rows older than LOG_RETENTION_DAYS go, a batch at a time. Safe to run twice. */
@Processor(QUEUES.maintenance)
export class PurgeLogsProcessor {
  private readonly logger = new Logger(PurgeLogsProcessor.name);

  constructor(
    private readonly repo: RequestLogsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Process('purge-logs')
  async handle(job: Job<Payload>): Promise<{ deleted: number }> {
    const batch = job.data.batchSize ?? 5000;
    let deleted = 0;
    for (const table of ['request_logs', 'action_logs'] as const)
      for (;;) {
        const n = await this.repo.purgeOlderThan(table, this.config.logRetentionDays, batch);
        deleted += n;
        if (n < batch) break;
      }
    this.logger.log({ deleted, jobId: job.id }, 'purged log rows past retention');
    return { deleted };
  }
}

/** The log retention, loaded only where workers run. */
@Module({ imports: [LogsModule], providers: [PurgeLogsProcessor] })
export class LogsJobsModule implements OnApplicationBootstrap {
  constructor(@InjectQueue(QUEUES.maintenance) private readonly queue: Queue) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.add('purge-logs', {}, { repeat: { cron: PURGE_LOGS_CRON }, jobId: 'purge-logs' });
  }
}
