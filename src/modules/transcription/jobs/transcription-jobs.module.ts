import { Process, Processor } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import type { Job } from 'bull';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { TranscriptionRunner } from '../transcription-runner.service';
import { TranscriptionsModule } from '../transcription.module';

type TranscribeJob = JobPayloads['transcription']['transcribe'];

/** One attempt per job; the runner keeps the attempt count and queues the next one itself (with backoff). */
@Processor(QUEUES.transcription)
export class TranscriptionProcessor {
  constructor(private readonly runner: TranscriptionRunner) {}

  @Process({ name: 'transcribe', concurrency: 2 })
  async transcribe(job: Job<TranscribeJob>): Promise<void> {
    await this.runner.run(job.data.workspaceId, job.data.transcriptionId);
  }
}

/** The transcription processor, loaded only where workers run. */
@Module({ imports: [TranscriptionsModule], providers: [TranscriptionProcessor] })
export class TranscriptionJobsModule {}
