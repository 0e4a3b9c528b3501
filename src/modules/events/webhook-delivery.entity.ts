import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export type WebhookKind = 'workspace' | 'agent' | 'request';

/** One event for one subscription: the durable record that retries and the sweep work from. */
@Entity('webhook_deliveries')
export class WebhookDelivery extends WorkspaceOwnedEntity {
  @Column('uuid') eventId!: string;
  @Column('varchar', { length: 40 }) eventType!: string;
  @Column('varchar', { length: 10 }) webhookKind!: WebhookKind;
  @Column('uuid') webhookId!: string;
  @Column('varchar', { length: 2048 }) url!: string;
  @Column('varchar', { length: 10 }) status!: DeliveryStatus;
  @Column('int', { default: 0 }) attemptCount!: number;
  /** `attemptCount` when the current round began (a redelivery starts a new round with a fresh retry budget). */
  @Column('int', { default: 0 }) roundStart!: number;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) nextAttemptAt!: Date | null;
  /** Lease of the worker sending it; a crashed worker's lease runs out and the sweep re-queues the delivery. */
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) lockedUntil!: Date | null;
  @Column('int', { nullable: true }) lastStatusCode!: number | null;
  @Column('text', { nullable: true }) lastError!: string | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) deliveredAt!: Date | null;
}

/** One HTTP attempt of a delivery. */
@Entity('webhook_delivery_attempts')
export class WebhookDeliveryAttempt extends WorkspaceOwnedEntity {
  @Column('uuid') deliveryId!: string;
  @Column('int') attempt!: number;
  @Column('boolean') succeeded!: boolean;
  @Column('int', { nullable: true }) statusCode!: number | null;
  @Column('int') durationMs!: number;
  @Column('text', { nullable: true }) responseExcerpt!: string | null;
  @Column('text', { nullable: true }) error!: string | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) nextRetryAt!: Date | null;
}
