import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';
import type { VoicemailOverride } from '@/modules/agents/voicemail-policy';

export const POOL_TYPES = ['FIFO', 'LIFO', 'Parallel'] as const;
export type PoolType = (typeof POOL_TYPES)[number];
export const RETRY_OUTCOMES = ['busy', 'no-answer', 'failed'] as const;
export type RetryOutcome = (typeof RETRY_OUTCOMES)[number];
export const RETRY_STRATEGIES = ['fixed', 'exponential'] as const;
export type RetryStrategy = (typeof RETRY_STRATEGIES)[number];
export const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Day = (typeof DAYS)[number];
export const CAMPAIGN_STATUSES = ['draft', 'running', 'paused', 'completed', 'cancelled'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
/**
 * Why a campaign is not dialling now (its answer's `waiting_reason`): not started yet, the next task's window closed,
 * its contact's calls for the day used up, a retry interval running, every slot taken, only inactive pools holding
 * tasks, nothing due (or nothing left), paused.
 */
export const WAITING_REASONS = [
  'before_start',
  'outside_window',
  'daily_cap',
  'retry_interval',
  'concurrency',
  'pools_inactive',
  'no_due_tasks',
  'paused',
] as const;
export type WaitingReason = (typeof WAITING_REASONS)[number];
/** Campaigns whose pending tasks are dialled: running ones, and completed ones whose tasks were retried since. */
export const DIALLING: CampaignStatus[] = ['running', 'completed'];
export const TASK_STATUSES = [
  'scheduled',
  'pending',
  'queued',
  'in_progress',
  'on_hold',
  'completed',
  'failed',
  'cancelled',
  'expired',
  'voicemail',
] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
/** Tasks that have not started: what cancel, hold, member removal and expiry act on. */
export const NOT_STARTED: TaskStatus[] = ['scheduled', 'pending', 'on_hold', 'queued'];
/** Tasks that have not ended: a contact has at most one of them per campaign (a unique index holds it). */
export const NOT_ENDED: TaskStatus[] = ['scheduled', 'pending', 'queued', 'in_progress', 'on_hold'];

/** A calling window: days and local times, read in the contact's zone when `use_contact_timezone`. */
export interface CallingWindow {
  days: Day[];
  start_time: string;
  end_time: string;
  use_contact_timezone: boolean;
}

export interface RetryPolicy {
  max_attempts: number;
  interval_minutes: number;
  strategy: RetryStrategy;
  on: RetryOutcome[];
  max_per_day: number | null;
}

@Entity('outbound_pools')
export class Pool extends WorkspaceOwnedEntity {
  @Column('varchar', { length: 255 }) name!: string;
  @Column('text', { nullable: true }) description!: string | null;
  @Column('varchar', { length: 10 }) type!: PoolType;
  @Column('int') maxParallelItems!: number;
  @Column('int') maxRetries!: number;
  @Column('boolean') isActive!: boolean;
}

@Entity('outbound_pool_members')
export class PoolMember extends WorkspaceOwnedEntity {
  @Column('uuid') poolId!: string;
  @Column('uuid') contactId!: string;
  @Column('int') priority!: number;
  @Column('text', { nullable: true }) notes!: string | null;
}

@Entity('outbound_rules')
export class Rule extends WorkspaceOwnedEntity {
  @Column('varchar', { length: 255 }) name!: string;
  @Column('varchar', { length: 10 }) type!: 'call' | 'text';
  @Column('int') maxCallsPerDay!: number;
  @Column('int') maxTotalCalls!: number;
  @Column('int') retryIntervalMinutes!: number;
  @Column('varchar', { length: 12 }) retryStrategy!: RetryStrategy;
  @Column('jsonb') retryOn!: RetryOutcome[];
  @Column('jsonb') days!: Day[];
  @Column('varchar', { length: 5 }) startTime!: string;
  @Column('varchar', { length: 5 }) endTime!: string;
  @Column('boolean') dncCheck!: boolean;
}

@Entity('outbound_campaigns')
export class Campaign extends WorkspaceOwnedEntity {
  @Column('varchar', { length: 255 }) name!: string;
  @Column('text', { nullable: true }) description!: string | null;
  @Column('uuid') agentId!: string;
  @Column('varchar', { length: 10 }) channel!: 'call' | 'whatsapp';
  @Column('uuid', { nullable: true }) phoneNumberId!: string | null;
  @Column('uuid', { nullable: true }) templateSettingId!: string | null;
  @Column('uuid', { nullable: true }) ruleId!: string | null;
  @Column('varchar', { length: 64 }) timezone!: string;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) startAt!: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) endAt!: Date | null;
  @Column('jsonb', { nullable: true }) window!: Partial<CallingWindow> | null;
  @Column('jsonb', { nullable: true }) retry!: Partial<Omit<RetryPolicy, 'max_per_day'>> | null;
  @Column('int') maxConcurrency!: number;
  @Column('jsonb') variables!: Record<string, string>;
  @Column('jsonb') metadata!: Record<string, unknown>;
  /** The campaign's answering-machine keys, over its agent's `settings.voice.voicemail` (copied onto its tasks). */
  @Column('jsonb', { nullable: true }) voicemail!: VoicemailOverride | null;
  @Column('varchar', { length: 10 }) status!: CampaignStatus;
  @Column('boolean') isListing!: boolean;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) startedAt!: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) endedAt!: Date | null;
}

@Entity('outbound_campaign_pools')
export class CampaignPool extends WorkspaceOwnedEntity {
  @Column('uuid') campaignId!: string;
  @Column('uuid') poolId!: string;
  @Column({ type: 'bigint', insert: false, update: false }) position!: string;
}

@Entity('outbound_tasks')
export class Task extends WorkspaceOwnedEntity {
  @Column('varchar', { length: 255 }) title!: string;
  @Column('varchar', { length: 20 }) type!: 'make_call' | 'send_message';
  @Column('varchar', { length: 12 }) status!: TaskStatus;
  @Column('varchar', { length: 12, nullable: true }) heldStatus!: TaskStatus | null;
  @Column('uuid') agentId!: string;
  @Column('uuid') contactId!: string;
  @Column('uuid', { nullable: true }) campaignId!: string | null;
  @Column('uuid', { nullable: true }) poolId!: string | null;
  @Column('uuid', { nullable: true }) phoneNumberId!: string | null;
  @Column({ type: 'timestamptz', precision: 3 }) scheduledAt!: Date;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) expiresAt!: Date | null;
  @Column('varchar', { length: 64, nullable: true }) timezone!: string | null;
  @Column('int') priority!: number;
  @Column({ type: 'timestamptz', precision: 3 }) memberAddedAt!: Date;
  @Column('int') maxAttempts!: number;
  @Column('int', { nullable: true }) maxPerDay!: number | null;
  @Column('int') retryIntervalMinutes!: number;
  @Column('varchar', { length: 12 }) retryStrategy!: RetryStrategy;
  @Column('jsonb') retryOn!: RetryOutcome[];
  @Column('jsonb', { nullable: true }) window!: CallingWindow | null;
  @Column('jsonb', { nullable: true }) taskData!: Record<string, unknown> | null;
  @Column('jsonb') variables!: Record<string, string>;
  @Column('jsonb') metadata!: Record<string, unknown>;
  @Column('jsonb', { nullable: true }) voicemail!: VoicemailOverride | null;
  @Column('int') attempts!: number;
  @Column('boolean') retried!: boolean;
  @Column('varchar', { length: 20, nullable: true }) lastOutcome!: string | null;
  @Column('varchar', { length: 255, nullable: true }) failureReason!: string | null;
  @Column('jsonb', { nullable: true }) failureData!: Record<string, unknown> | null;
  @Column('uuid', { nullable: true }) currentCallId!: string | null;
  @Column('uuid', { nullable: true }) currentMessageId!: string | null;
  @Column('varchar', { length: 64, nullable: true }) claimedBy!: string | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) claimedAt!: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) startedAt!: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) completedAt!: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) failedAt!: Date | null;
}

@Entity('outbound_task_attempts')
export class TaskAttempt extends WorkspaceOwnedEntity {
  @Column('uuid') taskId!: string;
  @Column('int') number!: number;
  @Column('uuid', { nullable: true }) conversationId!: string | null;
  @Column('uuid', { nullable: true }) messageId!: string | null;
  @Column('varchar', { length: 20, nullable: true }) outcome!: string | null;
  @Column('date') localDay!: string;
  @Column({ type: 'timestamptz', precision: 3 }) startedAt!: Date;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) endedAt!: Date | null;
}
