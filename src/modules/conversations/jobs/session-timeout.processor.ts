import { Process, Processor } from '@nestjs/bull';
import type { Job } from 'bull';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { SessionsService } from '../sessions.service';

/** A session's idle timer fired: end it if the customer is still idle (a newer turn made a newer timer). */
@Processor(QUEUES.sessions)
export class SessionTimeoutProcessor {
  constructor(private readonly sessions: SessionsService) {}

  @Process({ name: 'session-timeout', concurrency: 10 })
  async handle(job: Job<JobPayloads['sessions']['session-timeout']>): Promise<{ ended: boolean }> {
    return { ended: await this.sessions.endIfIdle(job.data.workspaceId, job.data.sessionId) };
  }
}
