import { Column } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';
import type { WebhookEvent } from './webhook-events';

/** What a workspace webhook and an agent webhook share. Secrets are sealed with the SecretBox, never returned. */
export abstract class WebhookSubscription extends WorkspaceOwnedEntity {
  @Column('varchar', { length: 2048 }) url!: string;
  @Column('text', { array: true }) events!: WebhookEvent[];
  @Column('boolean', { default: true }) isActive!: boolean;
  @Column('text', { nullable: true }) secretCiphertext!: string | null;
  /** The secret replaced by the last rotation, still signing until `previousSecretExpiresAt`. */
  @Column('text', { nullable: true }) previousSecretCiphertext!: string | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) previousSecretExpiresAt!: Date | null;
}
