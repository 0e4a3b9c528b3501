import type { JobOptions } from 'bull';
import type { WorkspaceId } from '@/common/auth/workspace-id';

/** Every queue of the service. Producers and processors name queues only through this table. */
export const QUEUES = {
  maintenance: 'maintenance',
  sessions: 'sessions',
  evaluation: 'evaluation',
  knowledge: 'knowledge',
  webhooks: 'webhooks',
  calls: 'calls',
  flows: 'flows',
  messaging: 'messaging',
  transcription: 'transcription',
  voice: 'voice',
  outbound: 'outbound',
  outboundSlots: 'outbound-slots',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/** Typed payloads, by queue and job name. Every payload that touches tenant data carries its workspaceId. */
export interface JobPayloads {
  maintenance: {
    'purge-idempotency-keys': { batchSize?: number };
    'purge-delivered-events': { olderThanDays?: number; batchSize?: number };
    'sweep-record-tables': Record<string, never>;
    /** Deletes request and action log rows older than LOG_RETENTION_DAYS (repeatable, daily). */
    'purge-logs': { batchSize?: number };
    /** Deletes flow executions that ended more than 30 days ago (repeatable, daily). */
    'purge-flow-executions': { batchSize?: number };
  };
  sessions: {
    /**
     * Ends the session when the customer has been idle past its timeout, else re-arms at the new deadline;
     * `activityMs` is the activity it was armed for, `dueMs` when it was due (absent on timers armed before).
     */
    'session-timeout': { workspaceId: WorkspaceId; sessionId: string; activityMs: number; dueMs?: number };
  };
  evaluation: {
    'evaluate-session': { workspaceId: WorkspaceId; sessionId: string };
  };
  knowledge: {
    /** Runs (or re-runs, replacing) the import of a data source. */
    import: { workspaceId: WorkspaceId; dataSourceId: string };
    /** Rebuilds every assigned agent's index of a data source. */
    sync: { workspaceId: WorkspaceId; dataSourceId: string };
  };
  webhooks: {
    /** One attempt of a webhook delivery when it is due; a no-op when another worker holds it or it is done. */
    deliver: { workspaceId: WorkspaceId; deliveryId: string };
  };
  voice: {
    /** Downloads a finished Twilio recording, stores it and deletes it at Twilio. */
    recording: {
      workspaceId: WorkspaceId;
      callId: string;
      recordingSid: string;
      recordingUrl: string;
      duration: number;
      channels: number;
    };
  };
  calls: CallJobs;
  flows: {
    /**
     * Starts the workspace's oldest queued flow executions while it has fewer than 20 running and runs them, with
     * the ones their ends start, back to back (`executionId` names the execution that asked; the oldest start
     * first); or, with `resume`, goes on with that running one at the step that asked to be tried again.
     */
    'run-execution': { workspaceId: WorkspaceId; executionId: string; resume?: boolean };
    /** Safety net (repeatable, every 5 s): starts waiting executions of workspaces with free slots. */
    'wake-queued': Record<string, never>;
    /** One cron time of a deployed `schedule` flow; it queues the execution and the next tick. */
    'cron-tick': { workspaceId: WorkspaceId; flowId: string; version: number; fireAt: number };
  };
  messaging: MessagingJobs;
  transcription: {
    /** One attempt at a pending transcription; the job id carries the attempt, so a repeat is dropped. */
    transcribe: { workspaceId: WorkspaceId; transcriptionId: string };
  };
  outbound: {
    /** One pass of the outbound dispatcher (repeatable every 2 s, and woken when an event commits). */
    dispatch: Record<string, never>;
  };
  'outbound-slots': {
    /** A call of the campaign has ended: claims and places its free slots at once (not behind a full pass). */
    'campaign-slot': { workspaceId: WorkspaceId; campaignId: string };
  };
}

/**
 * The `calls` queue's jobs. The two that carry a provider's report (`provider-event`, `machine-detection`) are
 * declared by the telephony port (`providers/telephony/telephony.port.ts`) into this interface, so that the queue
 * table names no provider.
 */
export interface CallJobs {
  /** Places an outbound call through its provider. */
  dial: { workspaceId: WorkspaceId; callId: string };
  /** `no-answer` when still ringing at `ring_timeout_seconds`. */
  'ring-timeout': { workspaceId: WorkspaceId; callId: string };
  /** Ends an answered call at `max_duration_seconds`. */
  'max-duration': { workspaceId: WorkspaceId; callId: string };
  /** Ends the call when the customer has said nothing since `activityMs` for the silence timeout. */
  'silence-timeout': { workspaceId: WorkspaceId; callId: string; activityMs: number };
  /** Rebuilds the concurrency sets of every workspace from PostgreSQL (repeatable, every 30 s). */
  'reconcile-slots': Record<string, never>;
}

/**
 * The `messaging` queue's jobs. The two that carry a provider's delivery status (`sandbox-status`,
 * `provider-status`) are declared by the messaging port (`providers/messaging/messaging.port.ts`) into this interface.
 */
export interface MessagingJobs {
  /**
   * Works through one thread's inbound messages (a Redis list filled by the hooks in arrival order), one at a
   * time; the workspace comes from the number or page addressed.
   */
  drain: { thread: string };
  /** Gives a drain job to threads that a stopped process took in its hooks and left (repeatable, every 30 s). */
  'recover-threads': Record<string, never>;
  /** Hands a stored outbound message to its provider. */
  send: { workspaceId: WorkspaceId; messageId: string };
  /** A template's review outcome: the sandbox's (by our id) or Meta's status update (by its id). */
  'template-status': {
    workspaceId?: WorkspaceId;
    templateId?: string;
    providerTemplateId?: string;
    status: string;
    reason?: string | null;
  };
}

/** Attempts, backoff and retention in one place; a job may run twice, so processors are idempotent. */
export const DEFAULT_JOB_OPTIONS: JobOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 2000 },
  removeOnComplete: 1000,
  removeOnFail: 5000,
};
