import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { newId } from '@/common/persistence/base.entity';
import { Sweep } from '@/common/persistence/sweep';
import type { Transaction } from '@/common/persistence/unit-of-work';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
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

/** A delivery as the sender works on it. */
export interface DeliveryRow {
  id: string;
  workspace_id: WorkspaceId;
  event_id: string;
  event_type: string;
  webhook_kind: 'workspace' | 'agent' | 'request';
  webhook_id: string;
  /** A request delivery's own address and sealed bearer token (the other kinds read their subscription). */
  url?: string;
  auth_ciphertext?: string | null;
  attempt_count: number;
  round_start: number;
  next_attempt_at: Date;
}

/** A delivery to create: one event to one subscription. */
export interface NewDelivery {
  workspaceId: WorkspaceId;
  eventId: string;
  eventType: string;
  kind: 'workspace' | 'agent' | 'request';
  webhookId: string;
  url: string;
  /** Sealed `Authorization: Bearer` token of a request delivery. */
  authCiphertext?: string | null;
}

/** The outcome of one attempt and the delivery's next state. */
export interface AttemptOutcome {
  attempt: number;
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  excerpt: string | null;
  error: string | null;
  nextAt: Date | null;
  status: DeliveryStatus;
  url: string | null;
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
  list(workspaceId: WorkspaceId, f: DeliveryFilter): Promise<[WebhookDelivery[], number]> {
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

  attemptsOf(workspaceId: WorkspaceId, deliveryIds: string[]): Promise<WebhookDeliveryAttempt[]> {
    if (!deliveryIds.length) return Promise.resolve([]);
    return this.attempts.find({
      where: { workspaceId, deliveryId: In(deliveryIds) },
      order: { attempt: 'ASC' },
    });
  }

  /** Puts a finished delivery back in line with a fresh retry budget; null when it is unknown or still pending. */
  async requeue(workspaceId: WorkspaceId, id: string): Promise<WebhookDelivery | null> {
    // UPDATE ... RETURNING answers [rows, affected] through the pg driver.
    const [rows] = await this.sql<[Array<{ id: string }>, number]>(
      `UPDATE webhook_deliveries
          SET status = 'pending', next_attempt_at = now(), round_start = attempt_count, locked_until = NULL,
              updated_at = now()
        WHERE workspace_id = $1 AND id = $2 AND status <> 'pending'
        RETURNING id`,
      [workspaceId, id],
    );
    if (!rows.length) return null;
    return this.findById(workspaceId, id);
  }

  /** Creates pending deliveries (one per event and subscription, never twice); answers the new ones. */
  async createPending(tx: Transaction, list: NewDelivery[]): Promise<DeliveryRow[]> {
    if (!list.length) return [];
    const values: unknown[] = [];
    const tuples = list.map((d) => {
      const p =
        values.push(
          newId(),
          d.workspaceId,
          d.eventId,
          d.eventType,
          d.kind,
          d.webhookId,
          d.url,
          d.authCiphertext ?? null,
        ) - 8;
      return `($${p + 1}, $${p + 2}, $${p + 3}, $${p + 4}, $${p + 5}, $${p + 6}, $${p + 7}, $${p + 8}, 'pending', now())`;
    });
    return (await tx.query(
      `INSERT INTO webhook_deliveries
         (id, workspace_id, event_id, event_type, webhook_kind, webhook_id, url, auth_ciphertext, status,
          next_attempt_at)
       VALUES ${tuples.join(', ')}
       ON CONFLICT (event_id, webhook_id) DO NOTHING
       RETURNING id, workspace_id, event_id, next_attempt_at`,
      values,
    )) as DeliveryRow[];
  }

  /** Deliveries of every workspace that are due and held by nobody (a lost job, a crashed worker). */
  @Sweep('delivery')
  dueUnheld(limit: number): Promise<DeliveryRow[]> {
    return this.sql<DeliveryRow[]>(
      `SELECT id, workspace_id, next_attempt_at FROM webhook_deliveries
        WHERE status = 'pending' AND next_attempt_at <= now() - interval '1 second'
          AND (locked_until IS NULL OR locked_until < now())
        ORDER BY next_attempt_at LIMIT $1`,
      [limit],
    );
  }

  /** Takes the delivery for `seconds` if it is due and nobody holds it; undefined otherwise. */
  async lease(workspaceId: WorkspaceId, id: string, seconds: number): Promise<DeliveryRow | undefined> {
    const [rows] = await this.sql<[DeliveryRow[], number]>(
      `UPDATE webhook_deliveries SET locked_until = now() + make_interval(secs => $3)
        WHERE workspace_id = $1 AND id = $2 AND status = 'pending'
          AND next_attempt_at <= now() + interval '50 milliseconds'
          AND (locked_until IS NULL OR locked_until < now())
        RETURNING id, workspace_id, event_id, event_type, webhook_kind, webhook_id, url, auth_ciphertext,
                  attempt_count, round_start`,
      [workspaceId, id, seconds],
    );
    return rows[0];
  }

  /** Lets go of the delivery and moves it to `due`. */
  async postpone(workspaceId: WorkspaceId, id: string, due: Date): Promise<void> {
    await this.sql(
      `UPDATE webhook_deliveries SET locked_until = NULL, next_attempt_at = $3 WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, id, due],
    );
  }

  /** Writes an attempt and the delivery's new state together. */
  async recordAttempt(
    tx: Transaction,
    workspaceId: WorkspaceId,
    id: string,
    o: AttemptOutcome,
  ): Promise<void> {
    await tx.query(
      `INSERT INTO webhook_delivery_attempts
         (id, workspace_id, delivery_id, attempt, succeeded, status_code, duration_ms, response_excerpt, error,
          next_retry_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [newId(), workspaceId, id, o.attempt, o.ok, o.statusCode, o.durationMs, o.excerpt, o.error, o.nextAt],
    );
    await tx.query(
      `UPDATE webhook_deliveries
          SET status = $3::varchar, attempt_count = $4, next_attempt_at = $5, locked_until = NULL, last_status_code = $6,
              last_error = $7, delivered_at = CASE WHEN $3::varchar = 'succeeded' THEN now() ELSE delivered_at END,
              url = COALESCE($8, url), updated_at = now()
        WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, id, o.status, o.attempt, o.nextAt, o.statusCode, o.error, o.url],
    );
  }
}
