import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';
import { CustomAnswers } from './appointment.entity';

export const REQUEST_STATUSES = ['pending', 'approved', 'rejected', 'cancelled'] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

/** A slot someone asked for; an operator approves, rejects or cancels it, or converts it into an appointment. */
@Entity('appointment_requests')
export class AppointmentRequest extends WorkspaceOwnedEntity {
  @Column('uuid') scheduleId!: string;
  @Column('uuid', { nullable: true }) contactId!: string | null;
  @Column('uuid', { nullable: true }) appointmentId!: string | null;
  @Column('varchar', { length: 300 }) title!: string;
  @Column('text', { nullable: true }) description!: string | null;
  @Column('text', { nullable: true }) notes!: string | null;
  @Column({ type: 'timestamptz', precision: 3 }) startTime!: Date;
  @Column({ type: 'timestamptz', precision: 3 }) endTime!: Date;
  @Column('varchar', { length: 10, default: 'pending' }) status!: RequestStatus;
  @Column('text', { nullable: true }) approvalNote!: string | null;
  @Column('text', { nullable: true }) rejectionReason!: string | null;
  @Column('jsonb', { default: () => `'{}'` }) customAnswers!: CustomAnswers;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) decidedAt!: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) convertedAt!: Date | null;
}
