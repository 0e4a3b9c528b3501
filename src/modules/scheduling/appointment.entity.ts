import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';

export const APPOINTMENT_STATUSES = ['pending', 'approved', 'cancelled', 'completed'] as const;
export type AppointmentStatus = (typeof APPOINTMENT_STATUSES)[number];

export type CustomAnswers = Record<string, string | number | boolean>;

/**
 * A booked slot on a schedule. Live appointments of one schedule never overlap: an exclusion constraint on
 * (schedule_id, tstzrange(start_time, end_time)) that skips cancelled ones.
 */
@Entity('appointments')
export class Appointment extends WorkspaceOwnedEntity {
  @Column('uuid') scheduleId!: string;
  @Column('uuid', { nullable: true }) contactId!: string | null;
  @Column('varchar', { length: 300 }) title!: string;
  @Column('text', { nullable: true }) description!: string | null;
  @Column('text', { nullable: true }) notes!: string | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) startTime!: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) endTime!: Date | null;
  @Column('varchar', { length: 10, default: 'pending' }) status!: AppointmentStatus;
  @Column('jsonb', { default: () => `'{}'` }) customAnswers!: CustomAnswers;
}
