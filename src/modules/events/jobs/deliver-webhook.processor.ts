import { Process, Processor } from '@nestjs/bull';
import type { Job } from 'bull';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { DeliveryService } from '../delivery.service';

type Payload = JobPayloads['webhooks']['deliver'];

/** Workers per process sending deliveries; the per-workspace in-flight cap keeps a share for other workspaces. */
export const DELIVERY_CONCURRENCY = 64;

/** One attempt of a delivery. Idempotent: a duplicate or stale job finds the delivery held or done and stops. */
@Processor(QUEUES.webhooks)
export class DeliverWebhookProcessor {
  constructor(private readonly deliveries: DeliveryService) {}

  @Process({ name: 'deliver', concurrency: DELIVERY_CONCURRENCY })
  async handle(job: Job<Payload>): Promise<void> {
    await this.deliveries.attempt(job.data.workspaceId, job.data.deliveryId);
  }
}
