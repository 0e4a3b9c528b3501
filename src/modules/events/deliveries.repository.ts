import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import { DeliveryStatus, WebhookDelivery, WebhookDeliveryAttempt } from './webhook-delivery.entity';

export interface DeliveryFilter {
  webhookId?: string;
  status?: DeliveryStatus;
  type?: string;
  from?: Date;
  to?: Date;
  skip: number;
  take: number;
}

@Injectable()
export class DeliveriesRepository extends WorkspaceScopedRepository<WebhookDelivery> {
  constructor(
    @InjectRepository(WebhookDelivery) repo: Repository<WebhookDelivery>,
    @InjectRepository(WebhookDeliveryAttempt) private readonly attempts: Repository<WebhookDeliveryAttempt>,
  ) {
    super(repo);
  }

  /** Newest first. */
  list(workspaceId: string, f: DeliveryFilter): Promise<[WebhookDelivery[], number]> {
    const qb = this.query(workspaceId, 'd');
    if (f.webhookId) qb.andWhere('d.webhook_id = :webhookId', { webhookId: f.webhookId });
    if (f.status) qb.andWhere('d.status = :status', { status: f.status });
    if (f.type) qb.andWhere('d.event_type = :type', { type: f.type });
    if (f.from) qb.andWhere('d.created_at >= :from', { from: f.from });
    if (f.to) qb.andWhere('d.created_at <= :to', { to: f.to });
    return qb
      .orderBy('d.created_at', 'DESC')
      .addOrderBy('d.id', 'DESC')
      .skip(f.skip)
      .take(f.take)
      .getManyAndCount();
  }

  attemptsOf(workspaceId: string, deliveryIds: string[]): Promise<WebhookDeliveryAttempt[]> {
    if (!deliveryIds.length) return Promise.resolve([]);
    return this.attempts.find({
      where: { workspaceId, deliveryId: In(deliveryIds) },
      order: { attempt: 'ASC' },
    });
  }

  /** Puts a finished delivery back in line with a fresh retry budget; null when it is unknown or still pending. */
  async requeue(workspaceId: string, id: string): Promise<WebhookDelivery | null> {
    // UPDATE ... RETURNING answers [rows, affected] through the pg driver.
    const [rows] = (await this.repo.query(
      `UPDATE webhook_deliveries
          SET status = 'pending', next_attempt_at = now(), round_start = attempt_count, locked_until = NULL,
              updated_at = now()
        WHERE workspace_id = $1 AND id = $2 AND status <> 'pending'
        RETURNING id`,
      [workspaceId, id],
    )) as [Array<{ id: string }>, number];
    if (!rows.length) return null;
    return this.findById(workspaceId, id);
  }
}
