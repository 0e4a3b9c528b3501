import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';

export const BLACKLIST_TYPES = ['Phone', 'Email', 'Both'] as const;
export type BlacklistType = (typeof BLACKLIST_TYPES)[number];
export type BlacklistSource = 'manual' | 'opt_out';

/** A do-not-contact entry: an E.164 number and/or an email, permanent or until `expiresAt`. */
@Entity('blacklist_entries')
export class BlacklistEntry extends WorkspaceOwnedEntity {
  @Column('uuid', { nullable: true }) contactId!: string | null;
  @Column('varchar', { length: 32, nullable: true }) phoneNumber!: string | null;
  @Column('varchar', { length: 320, nullable: true }) email!: string | null;
  @Column('varchar', { length: 10 }) type!: BlacklistType;
  @Column('text') reason!: string;
  @Column('varchar', { length: 10, default: 'manual' }) source!: BlacklistSource;
  @Column('boolean', { default: true }) isPermanent!: boolean;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) expiresAt!: Date | null;
}
