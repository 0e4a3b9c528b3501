import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Bull's job states, as counted for the queue depth gauge. */
const JOB_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed', 'paused'] as const;
/** The transports a call's media session runs on, always answered (0 when none is open). */
const CALL_TRANSPORTS = ['twilio', 'web'] as const;

/** A failed speech request as the speech adapters throw it (a SpeechError: `kind`, and `status` for `http`). */
interface SpeechFailure {
  kind?: unknown;
  status?: unknown;
}

/** An open call's media session as the open calls gauge counts it. */
export interface OpenCall {
  readonly transportKind: string;
  readonly closed: boolean;
}

/** The `kind` label of a speech failure: its kind, an HTTP error by status class (`http_4xx`, `http_5xx`). */
function speechErrorKind(err: unknown): string {
  const { kind, status } = (err ?? {}) as SpeechFailure;
  if (typeof kind !== 'string') return 'unknown';
  if (kind === 'http' && typeof status === 'number') return `http_${Math.floor(status / 100)}xx`;
  return kind;
}

/**
 * The process's Prometheus metrics, on a registry of its own (several applications may share a process in
 * tests). Every name starts with `cap_`, except prom-client's process and Node.js metrics.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();

  private readonly requests = new Histogram({
    name: 'cap_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status: count, and time to the last byte of the answer',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly jobs = new Counter({
    name: 'cap_jobs_total',
    help: 'Jobs that ended an attempt, by queue, job name and outcome (completed, failed, retried)',
    labelNames: ['queue', 'name', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly jobDuration = new Histogram({
    name: 'cap_job_duration_seconds',
    help: 'Time of one job attempt, by queue and job name',
    labelNames: ['queue', 'name'] as const,
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 1800],
    registers: [this.registry],
  });
  readonly webhookDeliveries = new Counter({
    name: 'cap_webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts by outcome: succeeded, retrying (failed, another attempt is due), failed (given up)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly webhookDuration = new Histogram({
    name: 'cap_webhook_delivery_duration_seconds',
    help: 'Time of one webhook delivery attempt, connect to last byte',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly evaluations = new Counter({
    name: 'cap_evaluation_features_total',
    help: 'Evaluation features run at session end, by feature type and status (completed, failed, skipped)',
    labelNames: ['type', 'status'] as const,
    registers: [this.registry],
  });
  private readonly voiceToVoice = new Histogram({
    name: 'cap_voice_to_voice_seconds',
    help: "Voice turns by agent: from the end of the caller's speech to the first audio of the agent's reply",
    labelNames: ['agent_id'] as const,
    buckets: [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1, 1.25, 1.5, 2, 2.5, 3, 4, 5],
    registers: [this.registry],
  });
  private readonly modelFirstToken = new Histogram({
    name: 'cap_voice_model_first_token_seconds',
    help: 'Voice turns by agent: from the request to the language model to its first token',
    labelNames: ['agent_id'] as const,
    buckets: [0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 1.5, 2, 3, 5],
    registers: [this.registry],
  });
  private readonly sttSessions = new Gauge({
    name: 'cap_stt_realtime_sessions',
    help: 'Realtime speech-to-text sessions open now in this process (one per live call using it)',
    registers: [this.registry],
  });
  private readonly sttReconnects = new Counter({
    name: 'cap_stt_realtime_reconnects_total',
    help: 'Realtime speech-to-text connections that came back after a loss (the audio not yet answered sent again)',
    registers: [this.registry],
  });
  private readonly sttFallbacks = new Counter({
    name: 'cap_stt_realtime_fallbacks_total',
    help: 'Realtime speech-to-text streams that gave up for batch, by cause (refused, unreachable at open, lost)',
    labelNames: ['cause'] as const,
    registers: [this.registry],
  });

  private readonly sttErrors = new Counter({
    name: 'cap_stt_errors_total',
    help:
      'Speech-to-text requests that failed, by mode (batch, realtime) and kind (timeout, http_4xx, http_5xx, ' +
      'invalid_response, unreachable, too_large, fallback); one aborted on purpose is not counted',
    labelNames: ['mode', 'kind'] as const,
    registers: [this.registry],
  });
  private readonly ttsErrors = new Counter({
    name: 'cap_tts_errors_total',
    help:
      'Text-to-speech requests that failed, by kind (timeout, http_4xx, http_5xx, invalid_response, unreachable, ' +
      'too_large); one aborted on purpose (the caller interrupted) is not counted',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  private readonly queues: Queue[] = [];
  private readonly callSources: Array<() => Iterable<OpenCall>> = [];

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    const queues = this.queues;
    new Gauge({
      name: 'cap_queue_jobs',
      help: 'Jobs in each queue by state, read from Redis at scrape time',
      labelNames: ['queue', 'state'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        await Promise.all(
          queues.map(async (q) => {
            const counts = (await q.getJobCounts()) as unknown as Record<string, number>;
            for (const state of JOB_STATES) this.set({ queue: q.name, state }, counts[state] ?? 0);
          }),
        );
      },
    });
    const callSources = this.callSources;
    new Gauge({
      name: 'cap_calls_open',
      help: "Calls whose media session is open in this process now, by transport (twilio, web): the call's owner",
      labelNames: ['transport'] as const,
      registers: [this.registry],
      collect() {
        const open = new Map<string, number>(CALL_TRANSPORTS.map((t) => [t, 0]));
        for (const source of callSources)
          for (const call of source())
            if (!call.closed) open.set(call.transportKind, (open.get(call.transportKind) ?? 0) + 1);
        this.reset();
        for (const [transport, n] of open) this.set({ transport }, n);
      },
    });
  }

  /** Counts this queue's jobs by state at each scrape. */
  watchQueue(queue: Queue): void {
    this.queues.push(queue);
  }

  /** Counts the open media sessions `source` answers at each scrape (every path that ends one is then right). */
  watchCalls(source: () => Iterable<OpenCall>): void {
    this.callSources.push(source);
  }

  /** Records one answered request; `route` is the matched pattern (never the raw path, which has ids in it). */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.requests.observe({ method, route, status }, seconds);
  }

  /** Records the timing of one voice turn of an agent (milliseconds; a step that did not happen is null). */
  observeVoiceTurn(
    agentId: string,
    ms: { voice_to_voice_ms: number | null; model_first_token_ms: number | null },
  ): void {
    if (ms.voice_to_voice_ms !== null)
      this.voiceToVoice.observe({ agent_id: agentId }, ms.voice_to_voice_ms / 1000);
    if (ms.model_first_token_ms !== null)
      this.modelFirstToken.observe({ agent_id: agentId }, ms.model_first_token_ms / 1000);
  }

  /** A realtime speech-to-text session opened, closed, came back after a loss, or fell back to batch. */
  observeRealtimeStt(event: 'opened' | 'closed' | 'reconnected' | 'fallback', cause?: string): void {
    if (event === 'opened') this.sttSessions.inc();
    else if (event === 'closed') this.sttSessions.dec();
    else if (event === 'reconnected') this.sttReconnects.inc();
    else this.sttFallbacks.inc({ cause: cause ?? 'unknown' });
  }

  /**
   * A speech request failed: speech to text (`mode` batch or realtime) or text to speech. One aborted on purpose
   * (kind `aborted`: the call cut the speech) is not a failure and is not counted.
   */
  observeSpeechError(service: 'stt', err: unknown, mode: 'batch' | 'realtime'): void;
  observeSpeechError(service: 'tts', err: unknown): void;
  observeSpeechError(service: 'stt' | 'tts', err: unknown, mode?: 'batch' | 'realtime'): void {
    const kind = speechErrorKind(err);
    if (kind === 'aborted') return;
    if (service === 'tts') this.ttsErrors.inc({ kind });
    else this.sttErrors.inc({ mode: mode ?? 'batch', kind });
  }

  /** The text exposition format. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
