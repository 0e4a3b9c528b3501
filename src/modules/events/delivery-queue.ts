import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import type { WorkspaceId } from '@/common/auth/workspace-id';

type DeliverJob = JobPayloads['webhooks']['deliver'];

/** The `webhooks` queue: one job per attempt of a delivery. */
@Injectable()
export class DeliveryQueue {
  constructor(@InjectQueue(QUEUES.webhooks) private readonly queue: Queue<DeliverJob>) {}

  /** Queues an attempt for when it is due; the job id is the delivery and its due time, so the sweep never doubles it. */
  async add(workspaceId: WorkspaceId, deliveryId: string, dueAt: Date): Promise<void> {
    await this.queue.add(
      'deliver',
      { workspaceId, deliveryId },
      {
        jobId: `${deliveryId}:${dueAt.getTime()}`,
        delay: Math.max(0, dueAt.getTime() - Date.now()),
        attempts: 1,
        removeOnComplete: true,
        removeOnFail: true,
      },
    );
  }
}
