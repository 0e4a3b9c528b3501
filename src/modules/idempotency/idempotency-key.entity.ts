import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';

/** A POST answered once under an Idempotency-Key, kept 24 hours to be answered again byte for byte. */
@Entity('idempotency_keys')
export class IdempotencyKey extends WorkspaceOwnedEntity {
  @Column('varchar', { length: 255 })
  key!: string;

  @Column('char', { length: 64 })
  requestHash!: string;

  @Column('varchar', { length: 16 })
  state!: 'processing' | 'completed';

  @Column('int', { nullable: true })
  responseStatus!: number | null;

  @Column('jsonb', { nullable: true })
  responseHeaders!: Record<string, string> | null;

  @Column('text', { nullable: true })
  responseBody!: string | null;

  @Column({ type: 'timestamptz', precision: 3 })
  lockedAt!: Date;

  @Column({ type: 'timestamptz', precision: 3 })
  expiresAt!: Date;
}
