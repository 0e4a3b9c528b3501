import type { VoicemailOverride } from '@/modules/agents/voicemail-policy';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { CallingWindow, RetryOutcome, RetryStrategy, TaskStatus } from './outbound.entities';

/** A task as its table holds it (the repositories answer rows in this shape). */
export interface TaskRow {
  id: string;
  workspace_id: WorkspaceId;
  title: string;
  type: 'make_call' | 'send_message';
  status: TaskStatus;
  held_status: TaskStatus | null;
  agent_id: string;
  contact_id: string;
  campaign_id: string | null;
  pool_id: string | null;
  phone_number_id: string | null;
  scheduled_at: Date;
  expires_at: Date | null;
  timezone: string | null;
  priority: number;
  member_added_at: Date;
  max_attempts: number;
  max_per_day: number | null;
  retry_interval_minutes: number;
  retry_strategy: RetryStrategy;
  retry_on: RetryOutcome[];
  window: CallingWindow | null;
  task_data: Record<string, unknown> | null;
  variables: Record<string, string>;
  metadata: Record<string, unknown>;
  /** The campaign's (or the task's own) answering-machine keys, over the agent's. */
  voicemail: VoicemailOverride | null;
  attempts: number;
  retried: boolean;
  last_outcome: string | null;
  /** A stable code (see task-failure.ts), and what it is about. */
  failure_reason: string | null;
  failure_data: Record<string, unknown> | null;
  current_call_id: string | null;
  current_message_id: string | null;
  claimed_by: string | null;
  claimed_at: Date | null;
  started_at: Date | null;
  completed_at: Date | null;
  failed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A task's ended call as the settlement reads it. */
export interface EndedCall {
  id: string;
  status: string;
  answered_at: Date | null;
  ended_at: Date | null;
  created_at: Date;
  /** Who answered, when detection ran (`machine` and `fax` are not answers). */
  answered_by: string | null;
  /** The call's voicemail policy tries a task again on a machine. */
  retry_on_voicemail: boolean;
}

/** A task after a move, with the status it left. */
export interface MovedTask {
  task: TaskRow;
  previous: TaskStatus | null;
}

/** The columns a new task is written with. */
type NewTaskColumns = Omit<
  TaskRow,
  | 'workspace_id'
  | 'attempts'
  | 'retried'
  | 'last_outcome'
  | 'failure_reason'
  | 'failure_data'
  | 'current_call_id'
  | 'current_message_id'
  | 'claimed_by'
  | 'claimed_at'
  | 'started_at'
  | 'completed_at'
  | 'failed_at'
  | 'created_at'
  | 'updated_at'
>;

export type NewTask = Omit<NewTaskColumns, 'member_added_at'> & { member_added_at: Date | string };

export const NEW_TASK_COLUMNS: Record<keyof NewTaskColumns, string> = {
  id: 'uuid',
  title: 'text',
  type: 'text',
  status: 'text',
  held_status: 'text',
  agent_id: 'uuid',
  contact_id: 'uuid',
  campaign_id: 'uuid',
  pool_id: 'uuid',
  phone_number_id: 'uuid',
  scheduled_at: 'timestamptz',
  expires_at: 'timestamptz',
  timezone: 'text',
  priority: 'int',
  member_added_at: 'timestamptz',
  max_attempts: 'int',
  max_per_day: 'int',
  retry_interval_minutes: 'int',
  retry_strategy: 'text',
  retry_on: 'jsonb',
  window: 'jsonb',
  task_data: 'jsonb',
  variables: 'jsonb',
  metadata: 'jsonb',
  voicemail: 'jsonb',
};

/** The rows an UPDATE or DELETE ... RETURNING answered (TypeORM gives those as `[rows, count]`). */
export function returned<R>(result: unknown): R[] {
  return (result as [R[], number])[0];
}
