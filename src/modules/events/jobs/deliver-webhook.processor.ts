import { Process, Processor } from '@nestjs/bull';
import { Logger } from '@nestjs/common';
import type { Job } from 'bull';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { DeliveryService } from '../delivery.service';

type Payload = JobPayloads['webhooks']['deliver'];

/** Workers per process sending deliveries; the per-workspace in-flight cap keeps a share for other workspaces. */
export const DELIVERY_CONCURRENCY = 64;

/** One attempt of a delivery. Idempotent: a duplicate or stale job finds the delivery held or done and stops. */
@Processor(QUEUES.webhooks)
export class DeliverWebhookProcessor {
  private readonly logger = new Logger(DeliverWebhookProcessor.name);

  constructor(private readonly deliveries: DeliveryService) {}

  @Process({ name: 'deliver', concurrency: DELIVERY_CONCURRENCY })
  async handle(job: Job<Payload>): Promise<void> {
    try {
      await this.deliveries.attempt(job.data.workspaceId, job.data.deliveryId);
    } catch (err) {
      // The sweep re-queues the delivery once its lease runs out.
      this.logger.error({ err: (err as Error).message, ...job.data }, 'webhook delivery attempt failed');
      throw err;
    }
  }
}
