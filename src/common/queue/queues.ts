import type { JobOptions } from 'bull';
import type { ProviderCallEvent } from '@/providers/telephony/telephony.port';

/** Every queue of the service. Producers and processors name queues only through this table. */
export const QUEUES = {
  maintenance: 'maintenance',
  sessions: 'sessions',
  evaluation: 'evaluation',
  knowledge: 'knowledge',
  webhooks: 'webhooks',
  calls: 'calls',
  outbound: 'outbound',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/** Typed payloads, by queue and job name. Every payload that touches tenant data carries its workspaceId. */
export interface JobPayloads {
  maintenance: {
    'purge-idempotency-keys': { batchSize?: number };
    'purge-delivered-events': { olderThanDays?: number; batchSize?: number };
    'sweep-record-tables': Record<string, never>;
  };
  sessions: {
    /** Ends the session when the customer has been idle past its timeout; `activityMs` is the turn that set it. */
    'session-timeout': { workspaceId: string; sessionId: string; activityMs: number };
  };
  evaluation: {
    'evaluate-session': { workspaceId: string; sessionId: string };
  };
  knowledge: {
    /** Runs (or re-runs, replacing) the import of a data source. */
    import: { workspaceId: string; dataSourceId: string };
    /** Rebuilds every assigned agent's index of a data source. */
    sync: { workspaceId: string; dataSourceId: string };
  };
  webhooks: {
    /** One attempt of a webhook delivery when it is due; a no-op when another worker holds it or it is done. */
    deliver: { workspaceId: string; deliveryId: string };
  };
  calls: {
    /** Places an outbound call through its provider. */
    dial: { workspaceId: string; callId: string };
    /** A status the provider reported (the sandbox's outcomes arrive this way). */
    'provider-event': {
      workspaceId: string;
      callId: string;
      event: ProviderCallEvent;
    };
    /** `no-answer` when still ringing at `ring_timeout_seconds`. */
    'ring-timeout': { workspaceId: string; callId: string };
    /** Ends an answered call at `max_duration_seconds`. */
    'max-duration': { workspaceId: string; callId: string };
    /** Ends the call when the customer has said nothing since `activityMs` for the silence timeout. */
    'silence-timeout': { workspaceId: string; callId: string; activityMs: number };
    /** Rebuilds the concurrency sets of every workspace from PostgreSQL (repeatable, every 30 s). */
    'reconcile-slots': Record<string, never>;
  };
  outbound: {
    /** One pass of the outbound dispatcher (repeatable every 2 s, and woken when an event commits). */
    dispatch: Record<string, never>;
  };
}

/** Attempts, backoff and retention in one place; a job may run twice, so processors are idempotent. */
export const DEFAULT_JOB_OPTIONS: JobOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 2000 },
  removeOnComplete: 1000,
  removeOnFail: 5000,
};
