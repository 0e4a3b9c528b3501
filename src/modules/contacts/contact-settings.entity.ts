import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';

export const INBOUND_MATCH_KEYS = ['phone_number', 'email'] as const;
export type InboundMatchKey = (typeof INBOUND_MATCH_KEYS)[number];

/** How inbound conversations find or create their contact; one row per workspace once changed. */
@Entity('contact_settings')
export class ContactSettings extends WorkspaceOwnedEntity {
  @Column('jsonb') matchInboundBy!: InboundMatchKey[];
  @Column('boolean', { default: true }) autoCreateContacts!: boolean;
  @Column('varchar', { length: 2, nullable: true }) defaultCountryCode!: string | null;
  @Column('varchar', { length: 64, nullable: true }) defaultTimezone!: string | null;
}
