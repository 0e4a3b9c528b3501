import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';
import type { StoredStep } from './steps/step-tree';

export type FlowStatus = 'draft' | 'deployed' | 'disabled';
export type ExecutionStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

/** A flow: its draft steps (one ordered JSON list, edited under the row's lock) and what is live. */
@Entity('flows')
export class Flow extends WorkspaceOwnedEntity {
  @Column('varchar', { length: 255 }) name!: string;
  @Column('text', { nullable: true }) description!: string | null;
  @Column('varchar', { length: 10 }) status!: FlowStatus;
  @Column('jsonb') steps!: StoredStep[];
  @Column('integer', { nullable: true }) liveVersion!: number | null;
  @Column('boolean') hasUndeployedChanges!: boolean;
  /** The live version's trigger, for matching events without reading versions. */
  @Column('varchar', { length: 40, nullable: true }) triggerKey!: string | null;
  @Column('jsonb', { nullable: true }) triggerConfig!: Record<string, unknown> | null;
  @Column('varchar', { length: 64, nullable: true }) webhookToken!: string | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) deployedAt!: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) disabledAt!: Date | null;
}

/** A deployed snapshot of the steps; executions run on one. */
@Entity('flow_versions')
export class FlowVersion extends WorkspaceOwnedEntity {
  @Column('uuid') flowId!: string;
  @Column('integer') versionNumber!: number;
  @Column('jsonb') steps!: StoredStep[];
  @Column({ type: 'timestamptz', precision: 3 }) deployedAt!: Date;
}

export interface StepRecord {
  step_uuid: string;
  step_number: number;
  key: string;
  status: 'succeeded' | 'failed' | 'skipped';
  input: unknown;
  output: unknown;
  error: { code: string; message: string } | null;
  attempts: number;
  started_at: string | null;
  duration_ms: number | null;
}

export interface ExecutionTrigger {
  key: string;
  event_uuid: string | null;
  data: unknown;
}

@Entity('flow_executions')
export class FlowExecution extends WorkspaceOwnedEntity {
  @Column('uuid') flowId!: string;
  @Column('integer') version!: number;
  @Column('varchar', { length: 10 }) status!: ExecutionStatus;
  @Column('jsonb') trigger!: ExecutionTrigger;
  /** What fired it (`event:<id>`, `cron:<time>`), unique per flow: a replayed dispatch adds nothing. */
  @Column('varchar', { length: 120, nullable: true }) triggerRef!: string | null;
  /** The executions that caused this one, then itself. */
  @Column('uuid', { array: true }) chain!: string[];
  @Column('uuid', { nullable: true }) retryOf!: string | null;
  /** Index of the first step to run (a retry starts at the step that failed). */
  @Column('integer') resumeAt!: number;
  @Column('jsonb', { nullable: true }) error!: { code: string; message: string; step_number?: number } | null;
  @Column('jsonb') steps!: StepRecord[];
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) startedAt!: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) finishedAt!: Date | null;
  /** The process running it (`FlowOwner.id`); null while it waits for a resume job, and once ended. */
  @Column('varchar', { length: 160, nullable: true }) claimedBy!: string | null;
  /** Until when its owner (or its resume job) holds it; renewed as its steps are saved. */
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) leaseUntil!: Date | null;
}
