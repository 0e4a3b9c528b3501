import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';

export const APPROVAL_STATUSES = ['Pending', 'Approved', 'Rejected'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** A contact field value memorize proposed after a session, waiting for (or given) a person's decision. */
@Entity('contact_approvals')
export class ContactApproval extends WorkspaceOwnedEntity {
  @Column('uuid') contactId!: string;
  @Column('uuid', { nullable: true }) conversationId!: string | null;
  @Column('uuid', { nullable: true }) sessionId!: string | null;
  /** `email`, or `custom_fields.<key>` for a custom field. */
  @Column('varchar', { length: 100 }) fieldName!: string;
  /** The value stored when the proposal was made. */
  @Column('jsonb', { nullable: true }) currentValue!: unknown;
  @Column('jsonb') proposedValue!: unknown;
  @Column('numeric', {
    precision: 4,
    scale: 3,
    nullable: true,
    transformer: {
      to: (v: number | null | undefined) => v,
      from: (v: string | null) => (v === null ? null : Number(v)),
    },
  })
  confidence!: number | null;
  @Column('text', { nullable: true }) reason!: string | null;
  @Column('varchar', { length: 10, default: 'Pending' }) status!: ApprovalStatus;
  /** The value written on approval (the proposed one, or the one the approver sent). */
  @Column('jsonb', { nullable: true }) appliedValue!: unknown;
  @Column('text', { nullable: true }) rejectionReason!: string | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) decidedAt!: Date | null;
}
