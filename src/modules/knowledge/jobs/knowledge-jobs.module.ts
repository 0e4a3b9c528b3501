import { InjectQueue, Process, Processor } from '@nestjs/bull';
import { Injectable, Logger, Module, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bull';
import { QUEUES } from '@/common/queue/queues';
import { KnowledgeModule } from '../knowledge.module';
import { RecordsRepository } from '../records.repository';
import { KnowledgeProcessor } from './knowledge.processor';

export const SWEEP_RECORD_TABLES_CRON = '23 * * * *';

/** Hourly: drops records tables that no data source points at and no import is filling (a crashed run's). */
@Processor(QUEUES.maintenance)
@Injectable()
export class SweepRecordTablesProcessor {
  private readonly logger = new Logger(SweepRecordTablesProcessor.name);

  constructor(private readonly records: RecordsRepository) {}

  @Process('sweep-record-tables')
  async handle(): Promise<{ dropped: number }> {
    const dropped = await this.records.dropOrphans();
    if (dropped) this.logger.log({ dropped }, 'dropped records tables left by interrupted imports');
    return { dropped };
  }
}

/** The processors of the knowledge module, loaded only where workers run. */
@Module({ imports: [KnowledgeModule], providers: [KnowledgeProcessor, SweepRecordTablesProcessor] })
export class KnowledgeJobsModule implements OnApplicationBootstrap {
  constructor(@InjectQueue(QUEUES.maintenance) private readonly queue: Queue) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.add(
      'sweep-record-tables',
      {},
      { repeat: { cron: SWEEP_RECORD_TABLES_CRON }, jobId: 'sweep-record-tables' },
    );
  }
}
