import { Column, Entity, Generated } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
/** Opening intervals per weekday, local to the schedule's time zone: `{mon: [["09:00", "17:00"]]}`. */
export type WeeklyHours = Partial<Record<Weekday, [string, string][]>>;

export const QUESTION_TYPES = ['text', 'long_text', 'number', 'boolean', 'date', 'email', 'phone'] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

export interface CustomQuestion {
  name: string;
  type: QuestionType;
  required: boolean;
  description: string | null;
}

/** A calendar that appointments are booked on, with its hours, agents and booking questions. */
@Entity('schedules')
export class Schedule extends WorkspaceOwnedEntity {
  /** A small integer identity, shown as `id` where the specification embeds a schedule. */
  @Column({ type: 'int', insert: false, update: false })
  @Generated('increment')
  seq!: number;

  @Column('varchar', { length: 200 }) name!: string;
  @Column('varchar', { length: 50, nullable: true }) type!: string | null;
  @Column('char', { length: 7, nullable: true }) color!: string | null;
  @Column('varchar', { length: 64, default: 'UTC' }) timezone!: string;
  @Column('jsonb', { default: () => `'{}'` }) weeklyHours!: WeeklyHours;
  @Column('uuid', { nullable: true }) availabilityTypeId!: string | null;
  @Column('uuid', { array: true, default: () => `'{}'` }) aiAgents!: string[];
  @Column('jsonb', { default: () => `'[]'` }) customQuestions!: CustomQuestion[];
}
