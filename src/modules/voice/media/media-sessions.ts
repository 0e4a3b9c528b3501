import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { Metrics } from '@/common/metrics/metrics';
import { REDIS } from '@/common/redis/redis.module';
import { CallInstance } from '@/modules/calls/runtime/call-instance';
import { CallLive } from '@/modules/calls/runtime/call-live';
import type { CallMedia } from '@/modules/calls/call-media.port';
import { isEnded } from '@/modules/calls/runtime/call-states';
import { CallsService } from '@/modules/calls/api/calls.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { MediaSession, PLAYED_WAIT_CAP_MS } from './media-session';
import type { StreamLink } from './stream-link';

/** The providers whose calls have a media session somewhere (a Twilio stream, a browser's socket). */
const STREAMED = new Set(['twilio', 'web']);
const PENDING_TTL_SECONDS = 600;
/** Longest wait for the replica holding a call's session to say it played what was sent to it. */
const RELAY_WAIT_MS = PLAYED_WAIT_CAP_MS + 5_000;

/** Words for a call whose session another replica holds, sent to that replica; `id` names its answer. */
interface SpeakRequest {
  id: string;
  replyTo: string;
  workspaceId: WorkspaceId;
  callId: string;
  text: string;
  messageId: string;
}

/**
 * The media sessions this process holds, one per call whose Twilio stream or browser socket is here (this process
 * owns the call), and the calls' audio as the calls module reaches it (its CALL_MEDIA port). Words for a call whose
 * session another replica holds (a timer run by a worker, a hook) go to that replica over Redis pub/sub and are
 * answered once played; words for a call whose session has not opened yet (the first message racing the stream's
 * start) wait in Redis until it opens.
 */
@Injectable()
export class MediaSessions implements CallMedia, OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(MediaSessions.name);
  private readonly sessions = new Map<string, MediaSession>();
  /** Per call on a Twilio stream, where its session sends (the current stream, or held while keys are pressed). */
  private readonly links = new Map<string, StreamLink>();
  /** Speech sent to other replicas, by request id: resolves when they answer. */
  private readonly relayed = new Map<string, () => void>();
  private stops: (() => Promise<void>)[] = [];

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly calls: CallsService,
    private readonly instance: CallInstance,
    private readonly live: CallLive,
    private readonly metrics: Metrics,
  ) {}

  onModuleInit(): void {
    // Open calls are read from the sessions held at each scrape: right however a session ends.
    this.metrics.watchCalls(() => this.sessions.values());
  }

  async onApplicationBootstrap(): Promise<void> {
    this.stops.push(
      await this.live.on<SpeakRequest>(this.speakChannel(this.instance.id), (r) => void this.speakFor(r)),
      await this.live.on<{ id: string }>(this.spokenChannel(this.instance.id), (a) =>
        this.relayed.get(a.id)?.(),
      ),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    for (const s of this.sessions.values()) s.close();
    for (const done of this.relayed.values()) done();
    await Promise.all(this.stops.map((stop) => stop().catch(() => undefined)));
  }

  /** The session of a call held here. */
  session(callId: string): MediaSession | undefined {
    return this.sessions.get(callId);
  }

  /** Where the session of a call on a Twilio stream sends. */
  link(callId: string): StreamLink | undefined {
    return this.links.get(callId);
  }

  /**
   * The call's session from now on, sending through `link` when on a Twilio stream (one left over from an earlier
   * stream stops).
   */
  register(callId: string, session: MediaSession, link?: StreamLink): void {
    this.sessions.get(callId)?.close();
    this.sessions.set(callId, session);
    if (link) this.links.set(callId, link);
    else this.links.delete(callId);
  }

  /** The session stops and is let go, unless the call has another by now; answers whether it was the call's. */
  drop(callId: string, session: MediaSession): boolean {
    session.close();
    if (this.sessions.get(callId) !== session) return false;
    this.sessions.delete(callId);
    this.links.delete(callId);
    return true;
  }

  /** Speaks what was kept for the call while its session was not open yet. */
  async flushPending(session: MediaSession): Promise<void> {
    const key = this.pendingKey(session.callId);
    for (let raw = await this.redis.lpop(key); raw; raw = await this.redis.lpop(key)) {
      const { text, messageId } = JSON.parse(raw) as { text: string; messageId: string };
      void session.speak(text, messageId);
    }
  }

  async speak(
    workspaceId: WorkspaceId,
    callId: string,
    text: string,
    messageId: string,
    provider?: string,
  ): Promise<void> {
    const session = this.sessions.get(callId);
    if (session) return session.speak(text, messageId);
    // Only a Twilio call's stream or a web call's socket can still open and play what is kept for it.
    if (provider !== undefined && !STREAMED.has(provider)) return;
    const call = await this.calls.find(workspaceId, callId);
    if (!call || !STREAMED.has(call.provider) || isEnded(call.status)) return;
    const owner = call.ownerId;
    if (owner && owner !== this.instance.id && (await this.instance.isAlive(owner)))
      return this.relay(owner, { workspaceId, callId, text, messageId });
    await this.keep(callId, text, messageId);
  }

  stop(callId: string): void {
    this.sessions.get(callId)?.stop();
  }

  hold(callId: string): void {
    this.links.get(callId)?.hold();
  }

  release(callId: string): void {
    this.links.get(callId)?.release();
  }

  private speakChannel(instanceId: string): string {
    return this.live.name(`voice:speak:${instanceId}`);
  }

  private spokenChannel(instanceId: string): string {
    return this.live.name(`voice:spoken:${instanceId}`);
  }

  private pendingKey(callId: string): string {
    return `voice:pending:${callId}`;
  }

  /** Kept for the session still to open (flushed once it opens). */
  private async keep(callId: string, text: string, messageId: string): Promise<void> {
    const key = this.pendingKey(callId);
    await this.redis.rpush(key, JSON.stringify({ text, messageId }));
    await this.redis.expire(key, PENDING_TTL_SECONDS);
  }

  /** Sends the words to the replica owning the call; resolves once it played them, or at RELAY_WAIT_MS. */
  private async relay(owner: string, words: Omit<SpeakRequest, 'id' | 'replyTo'>): Promise<void> {
    const request: SpeakRequest = { ...words, id: randomUUID(), replyTo: this.instance.id };
    const answered = new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.logger.warn(
          { callId: words.callId, owner },
          'the call owner did not confirm its speech in time',
        );
        done();
      }, RELAY_WAIT_MS);
      const done = () => {
        clearTimeout(timer);
        this.relayed.delete(request.id);
        resolve();
      };
      this.relayed.set(request.id, done);
    });
    await this.live.send(this.speakChannel(owner), request);
    await answered;
  }

  /** Words another replica sent: spoken on the session held here (else kept for it), then answered. */
  private async speakFor(r: SpeakRequest): Promise<void> {
    try {
      const session = this.sessions.get(r.callId);
      if (session) await session.speak(r.text, r.messageId);
      else await this.keep(r.callId, r.text, r.messageId);
    } catch (err) {
      this.logger.warn(
        { callId: r.callId, err: (err as Error).message },
        'speech for another replica failed',
      );
    } finally {
      await this.live.send(this.spokenChannel(r.replyTo), { id: r.id }).catch(() => undefined);
    }
  }
}
