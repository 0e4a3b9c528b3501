import { Process, Processor } from '@nestjs/bull';
import type { Job } from 'bull';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { MemorizeService } from '@/modules/conversations/memorize.service';
import { EvaluationService } from '../evaluation.service';

/**
 * A session ended: memorize updates the contact, then the evaluation runs and reports. Both steps are safe to run
 * twice; the report comes last so that a reported session is completely processed.
 */
@Processor(QUEUES.evaluation)
export class EvaluateSessionProcessor {
  constructor(
    private readonly evaluation: EvaluationService,
    private readonly memorize: MemorizeService,
  ) {}

  @Process({ name: 'evaluate-session', concurrency: 25 })
  async handle(job: Job<JobPayloads['evaluation']['evaluate-session']>): Promise<{ records: number }> {
    const { workspaceId, sessionId } = job.data;
    await this.memorize.afterSession(workspaceId, sessionId);
    const result = await this.evaluation.evaluateSession(workspaceId, sessionId);
    return { records: result.records };
  }
}
