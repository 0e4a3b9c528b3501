import { Column, Entity, Generated, JoinTable, ManyToMany } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';
import { ContactTag } from './contact-tag.entity';

export const CONTACT_STATUSES = ['Active', 'Inactive'] as const;
export type ContactStatus = (typeof CONTACT_STATUSES)[number];

export type CustomFieldValues = Record<string, string | number | boolean>;

/** A person the agents talk to. The phone number is unique in a workspace (a partial unique index). */
@Entity('contacts')
export class Contact extends WorkspaceOwnedEntity {
  /** A small integer identity, shown as `id` where the specification embeds a contact. */
  @Column({ type: 'int', insert: false, update: false })
  @Generated('increment')
  seq!: number;

  @Column('varchar', { length: 200, nullable: true }) name!: string | null;
  @Column('varchar', { length: 200, nullable: true }) surname!: string | null;
  @Column('varchar', { length: 320, nullable: true }) email!: string | null;
  @Column('varchar', { length: 16, nullable: true }) phoneNumber!: string | null;
  @Column('varchar', { length: 30, nullable: true }) numberType!: string | null;
  @Column('varchar', { length: 2, nullable: true }) countryCode!: string | null;
  @Column('varchar', { length: 64, nullable: true }) timezone!: string | null;
  @Column('varchar', { length: 35, nullable: true }) primaryLanguage!: string | null;
  @Column('varchar', { length: 30, nullable: true }) preferredContactChannel!: string | null;
  @Column('varchar', { length: 100, nullable: true }) preferredContactTime!: string | null;
  @Column('varchar', { length: 10, default: 'Active' }) status!: ContactStatus;
  @Column('jsonb', { default: () => `'{}'` }) customFields!: CustomFieldValues;
  @Column('uuid', { nullable: true }) pipelineStageId!: string | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) pipelineStageChangedAt!: Date | null;

  @ManyToMany(() => ContactTag)
  @JoinTable({
    name: 'contact_tag_links',
    joinColumn: { name: 'contact_id', referencedColumnName: 'id' },
    inverseJoinColumn: { name: 'tag_id', referencedColumnName: 'id' },
  })
  tags!: ContactTag[];
}
