import { Injectable, Logger } from '@nestjs/common';
import { Metrics } from '@/common/metrics/metrics';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import { DeliveriesRepository, DeliveryRow } from './deliveries.repository';
import { DeliveryQueue } from './delivery-queue';
import { RetryPolicy } from './retry-policy';

/** What one attempt came to (`status` null when no answer arrived). */
export interface AttemptResult {
  ok: boolean;
  status: number | null;
  durationMs: number;
  excerpt: string | null;
  error: string | null;
}

/** The end of every attempt: the attempt row, the delivery's new state, the retry, the metrics and the log. */
@Injectable()
export class DeliveryOutcomes {
  private readonly logger = new Logger('DeliveryService');

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly deliveries: DeliveriesRepository,
    private readonly queue: DeliveryQueue,
    private readonly policy: RetryPolicy,
    private readonly metrics: Metrics,
  ) {}

  /** Writes the attempt and the delivery's new state; queues the next attempt when one is left. */
  async record(
    d: DeliveryRow,
    attemptNo: number,
    r: AttemptResult,
    retryAfterMs: number | null,
    url: string | undefined,
    final: boolean = false,
  ): Promise<void> {
    const terminal = r.ok || final;
    const delay = terminal ? null : this.policy.next(attemptNo - d.round_start, retryAfterMs);
    const nextAt = delay === null ? null : new Date(Date.now() + delay);
    const status = r.ok ? 'succeeded' : nextAt ? 'pending' : 'failed';
    await this.unitOfWork.run((tx) =>
      this.deliveries.recordAttempt(tx, d.workspace_id, d.id, {
        attempt: attemptNo,
        ok: r.ok,
        statusCode: r.status,
        durationMs: r.durationMs,
        excerpt: r.excerpt,
        error: r.error,
        nextAt,
        status,
        url: url ?? null,
      }),
    );
    if (nextAt) await this.queue.add(d.workspace_id, d.id, nextAt);
    const outcome = status === 'pending' ? 'retrying' : status;
    this.metrics.webhookDeliveries.inc({ outcome });
    if (r.status !== null || r.durationMs > 0) this.metrics.webhookDuration.observe(r.durationMs / 1000);
    if (!r.ok)
      this.logger.log(
        {
          workspaceId: d.workspace_id,
          deliveryId: d.id,
          attempt: attemptNo,
          statusCode: r.status,
          reason: r.error,
          nextAttemptAt: nextAt?.toISOString() ?? null,
        },
        outcome === 'retrying'
          ? 'webhook delivery attempt failed, will be retried'
          : 'webhook delivery failed',
      );
  }
}
