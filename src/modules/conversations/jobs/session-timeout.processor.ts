import { Process, Processor } from '@nestjs/bull';
import type { Job } from 'bull';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { SessionsService } from '../sessions.service';

/** A session's idle timer fired: end it if the customer is still idle, else it re-arms at the new deadline. */
@Processor(QUEUES.sessions)
export class SessionTimeoutProcessor {
  constructor(private readonly sessions: SessionsService) {}

  @Process({ name: 'session-timeout', concurrency: 10 })
  async handle(job: Job<JobPayloads['sessions']['session-timeout']>): Promise<{ ended: boolean }> {
    const { workspaceId, sessionId, dueMs } = job.data;
    return { ended: await this.sessions.endIfIdle(workspaceId, sessionId, dueMs ?? null) };
  }
}
