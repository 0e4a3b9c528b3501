import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';

export const ACTION_LOG_TYPES = ['task', 'workflow', 'intent'] as const;
export type ActionLogType = (typeof ACTION_LOG_TYPES)[number];

/**
 * One thing the platform did on a workspace's behalf: a task attempt, a flow execution or an intent call.
 * `subjectId` is the task, execution or intent the row is about.
 */
@Entity('action_logs')
export class ActionLogEntry extends WorkspaceOwnedEntity {
  @Column('varchar', { length: 10 }) type!: ActionLogType;
  @Column('varchar', { length: 255 }) name!: string;
  @Column('varchar', { length: 20 }) status!: string;
  @Column('varchar', { length: 20, nullable: true }) channel!: string | null;
  @Column('integer', { nullable: true }) durationMs!: number | null;
  @Column('uuid', { nullable: true }) agentId!: string | null;
  @Column('uuid', { nullable: true }) contactId!: string | null;
  @Column('uuid', { nullable: true }) subjectId!: string | null;
  @Column('jsonb', { nullable: true }) request!: unknown;
  @Column('jsonb', { nullable: true }) response!: unknown;
  @Column('text', { nullable: true }) error!: string | null;
}
