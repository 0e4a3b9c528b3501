import { Logger } from '@nestjs/common';
import { AsyncResource } from 'node:async_hooks';
import { reportUsage } from '@/providers/usage-report';
import type { RealtimeSttConfig } from '@/config/app.config';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { RealtimeConnection } from './realtime-stt.connection';
import { sessionUpdate, upgradeHeaders } from './realtime-stt.protocol';
import {
  FallbackCause,
  REALTIME_STT_LIMITS,
  RealtimeSttLimits,
  RealtimeSttStream,
} from './realtime-stt.stream';
import type { SpeechErrorMetrics } from './openai-compatible.speech';
import { SpeechError, StreamingSpeechToText, SttStream, SttStreamOptions } from './speech.port';

/** Where realtime speech-to-text reports (the process's Metrics); its errors are counted with mode `realtime`. */
export interface RealtimeSttMetrics extends SpeechErrorMetrics {
  observeRealtimeStt(event: 'opened' | 'closed' | 'reconnected'): void;
  observeRealtimeStt(event: 'fallback', cause: FallbackCause): void;
}

/** Where the adapter writes its few lines (a reconnect under way, a fallback). */
export interface RealtimeSttLog {
  warn(message: string): void;
}

export interface RealtimeSttOptions {
  metrics?: RealtimeSttMetrics;
  limits?: RealtimeSttLimits;
  /** Nest's logger unless given (the application passes its root logger). */
  log?: RealtimeSttLog;
}

/**
 * Streaming speech to text over the OpenAI Realtime API in transcription mode (`…/realtime?intent=transcription`,
 * STT_REALTIME_URL): one WebSocket per stream, 24 kHz PCM16, our commits (see docs/api.md, "Streaming speech to
 * text"). At most one stream per call: opening another for the same `callId` closes the first.
 */
export class OpenAiRealtimeSpeechToText implements StreamingSpeechToText {
  readonly configured = true;
  private readonly open = new Map<RealtimeSttStream, { callId?: string; workspaceId?: WorkspaceId }>();

  private readonly metrics?: RealtimeSttMetrics;
  private readonly limits: RealtimeSttLimits;
  private readonly log: RealtimeSttLog;

  constructor(
    private readonly config: RealtimeSttConfig & { url: string },
    options: RealtimeSttOptions = {},
  ) {
    this.metrics = options.metrics;
    this.limits = options.limits ?? REALTIME_STT_LIMITS;
    this.log = options.log ?? new Logger('RealtimeSpeechToText');
  }

  async openStream(options: SttStreamOptions): Promise<SttStream> {
    if (options.signal?.aborted) throw new SpeechError('Realtime speech to text was closed', 'aborted');
    const { config } = this;
    const call = { callId: options.callId, workspaceId: options.workspaceId };
    const where = options.callId ? ` (call ${options.callId})` : '';
    let counted = false;
    // The audio is counted for the work that opened the stream (the call), wherever its pieces are sent from.
    const used = AsyncResource.bind((ms: number) => reportUsage({ sttMs: ms }));
    const stream: RealtimeSttStream = new RealtimeSttStream(
      {
        connect: (timeoutMs) =>
          RealtimeConnection.open({
            url: config.url,
            headers: upgradeHeaders(config.protocol, config.apiKey),
            session: sessionUpdate(config.protocol, {
              model: config.model,
              language: options.language,
              serverVad: config.serverVad,
            }),
            timeoutMs,
            keepAliveMs: this.limits.keepAliveMs,
          }),
        serverVad: config.serverVad,
        limits: this.limits,
        reconnected: () => this.metrics?.observeRealtimeStt('reconnected'),
        warn: (message) => this.log.warn(this.redact(message) + where),
        fellBack: (cause, message) => {
          this.metrics?.observeRealtimeStt('fallback', cause);
          this.log.warn(this.redact(message) + where);
        },
        failed: (err) => this.metrics?.observeSpeechError('stt', err, 'realtime'),
        used,
        ended: () => {
          if (!this.open.delete(stream) || !counted) return;
          this.metrics?.observeRealtimeStt('closed');
        },
      },
      options.sampleRate,
    );
    if (options.callId) for (const [other, of] of this.open) if (of.callId === options.callId) other.close();
    this.open.set(stream, call);
    const onAbort = () => stream.close();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    stream.on('fallback', () => options.signal?.removeEventListener('abort', onAbort));
    try {
      await stream.start();
    } catch (err) {
      options.signal?.removeEventListener('abort', onAbort);
      throw err;
    }
    // Closed meanwhile (the call ended, or another stream for it opened): never counted.
    if (this.open.has(stream)) {
      counted = true;
      this.metrics?.observeRealtimeStt('opened');
    }
    return stream;
  }

  openSessions(workspaceId?: WorkspaceId): number {
    let n = 0;
    for (const of of this.open.values()) if (workspaceId === undefined || of.workspaceId === workspaceId) n++;
    return n;
  }

  /** Whatever a message says, never the key. */
  private redact(message: string): string {
    const key = this.config.apiKey;
    return key ? message.split(key).join('[redacted]') : message;
  }
}
