import { Process, Processor } from '@nestjs/bull';
import type { Job } from 'bull';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { ImportsService } from '../imports.service';
import { KnowledgeService } from '../knowledge.service';

type ImportPayload = JobPayloads['knowledge']['import'];
type SyncPayload = JobPayloads['knowledge']['sync'];

/** Imports and syncs of data sources; both replace what an earlier run wrote, so running twice is safe. */
@Processor(QUEUES.knowledge)
export class KnowledgeProcessor {
  constructor(
    private readonly imports: ImportsService,
    private readonly knowledge: KnowledgeService,
  ) {}

  @Process({ name: 'import', concurrency: 2 })
  async import(job: Job<ImportPayload>): Promise<void> {
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    await this.imports.run(job.data.workspaceId, job.data.dataSourceId, lastAttempt);
  }

  @Process({ name: 'sync', concurrency: 2 })
  async sync(job: Job<SyncPayload>): Promise<void> {
    await this.knowledge.runSync(job.data.workspaceId, job.data.dataSourceId);
  }
}
