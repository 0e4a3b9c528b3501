import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';

/** A web call's client token: only its SHA-256 is kept; it opens that call's socket once, before it expires. */
@Entity('web_call_tokens')
export class WebCallToken extends WorkspaceOwnedEntity {
  @Column('uuid') callId!: string;
  @Column('char', { length: 64 }) tokenHash!: string;
  @Column({ type: 'timestamptz', precision: 3 }) expiresAt!: Date;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) usedAt!: Date | null;
}
