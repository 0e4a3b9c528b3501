import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';

export const CONTACT_FIELD_TYPES = ['text', 'number', 'date', 'boolean', 'select'] as const;
export type ContactFieldType = (typeof CONTACT_FIELD_TYPES)[number];

/** The definition of one custom field: the values live in `contacts.custom_fields` under `key`. */
@Entity('contact_fields')
export class ContactField extends WorkspaceOwnedEntity {
  @Column('varchar', { length: 64 }) key!: string;
  @Column('varchar', { length: 200 }) label!: string;
  @Column('varchar', { length: 10 }) type!: ContactFieldType;
  @Column('jsonb', { default: () => `'[]'` }) options!: string[];
}
