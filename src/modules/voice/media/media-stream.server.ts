import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import Redis from 'ioredis';
import { RawData, WebSocket, WebSocketServer } from 'ws';
import { AppException } from '@/common/errors/app.exception';
import { generalBody } from '@/common/http/error-body';
import { Metrics } from '@/common/metrics/metrics';
import { REDIS } from '@/common/redis/redis.module';
import { isUuid } from '@/common/validation/validators';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import type { Call } from '@/modules/calls/call.entity';
import { CallInstance } from '@/modules/calls/call-instance';
import { CallLifecycle } from '@/modules/calls/call-lifecycle.service';
import { CallLive } from '@/modules/calls/call-live';
import { CallMedia, CallRuntime } from '@/modules/calls/call-runtime.service';
import { isEnded } from '@/modules/calls/call-states';
import { CallsRepository } from '@/modules/calls/calls.repository';
import { AgentContextReader } from '@/modules/conversations/agent-context';
import { ConversationsService } from '@/modules/conversations/conversations.service';
import { TurnLatencyService } from '@/modules/conversations/turn-latency.service';
import { UsageRecorder } from '@/modules/usage/usage-recorder';
import {
  SPEECH_TO_TEXT,
  SPEECH_TO_TEXT_STREAM,
  SpeechToText,
  StreamingSpeechToText,
  sttModeOf,
  TEXT_TO_SPEECH,
  TextToSpeech,
} from '@/providers/speech/speech.port';
import { forwardingKey, resumingKey } from '@/providers/telephony/twilio.telephony';
import { isValidStreamToken } from '@/providers/twilio/stream-token';
import { callSpeech } from './call-speech';
import { MediaSession, PLAYED_WAIT_CAP_MS, TurnTiming } from './media-session';
import { StreamLink } from './stream-link';
import type { MediaTransport } from './transport';
import { twilioAudio, TwilioTransport } from './twilio-transport';
import { sileroModel } from './vad';
import { voiceSettings } from './voice-settings';

const PATH = /^\/hooks\/v1\/twilio\/media\/([^/?]*)\/?(?:\?.*)?$/;
/** The providers whose calls have a media session somewhere (a Twilio stream, a browser's socket). */
const STREAMED = new Set(['twilio', 'web']);
const PENDING_TTL_SECONDS = 600;
/** Longest wait for the replica holding a call's stream to say it played what was sent to it. */
const RELAY_WAIT_MS = PLAYED_WAIT_CAP_MS + 5_000;
/** How long a session waits for its stream to come back after keys were pressed, before it is let go. */
const RESUME_WAIT_MS = 60_000;

/** Words for a call whose stream another replica holds, sent to that replica; `id` names its answer. */
interface SpeakRequest {
  id: string;
  replyTo: string;
  workspaceId: string;
  callId: string;
  text: string;
  messageId: string;
}

interface StreamMessage {
  event?: string;
  start?: { streamSid?: string; callSid?: string; customParameters?: Record<string, string> };
  media?: { payload?: string; track?: string };
  mark?: { name?: string };
  dtmf?: { digit?: string };
}

/**
 * Twilio's bidirectional Media Streams at wss://.../hooks/v1/twilio/media/{callUuid}. The process holding the
 * socket owns the call: it runs its turns and performs its live actions. Speech decided on another replica (a timer
 * run by a worker, a hook) is sent to the owner over Redis pub/sub and answered once played. Speech meant for a call
 * whose socket is not open yet (the first message racing the stream's start) waits in Redis until it opens.
 */
@Injectable()
export class MediaStreamServer
  implements CallMedia, OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown
{
  private readonly logger = new Logger(MediaStreamServer.name);
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  private readonly sessions = new Map<string, MediaSession>();
  /** Per call, where its session sends (the current stream, or held while keys are pressed). */
  private readonly links = new Map<string, StreamLink>();
  /** Sessions waiting for their stream to come back, and when they stop waiting. */
  private readonly returning = new Map<string, NodeJS.Timeout>();
  /** Speech sent to other replicas, by request id: resolves when they answer. */
  private readonly relayed = new Map<string, () => void>();
  private stops: (() => Promise<void>)[] = [];
  /** Given to the sessions opened from now on: each turn's timing (the voice benchmark sets it). */
  onTurnTiming?: (timing: TurnTiming) => void;
  /** Counts the speech services' usage for the call each session serves. */
  @Inject(UsageRecorder) private readonly usage!: UsageRecorder;
  /** Speech to text while the caller speaks (realtime mode). */
  @Inject(SPEECH_TO_TEXT_STREAM) private readonly sttStream!: StreamingSpeechToText;
  /** Stores each reply's turn timing. */
  @Inject(TurnLatencyService) private readonly turnLatency!: TurnLatencyService;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(SPEECH_TO_TEXT) private readonly stt: SpeechToText,
    @Inject(TEXT_TO_SPEECH) private readonly tts: TextToSpeech,
    private readonly calls: CallsRepository,
    private readonly runtime: CallRuntime,
    private readonly lifecycle: CallLifecycle,
    private readonly agents: AgentContextReader,
    private readonly conversations: ConversationsService,
    private readonly instance: CallInstance,
    private readonly live: CallLive,
    private readonly metrics: Metrics,
  ) {}

  onModuleInit(): void {
    this.runtime.media = this;
    // Open calls are read from the sessions held at each scrape: right however a session ends.
    this.metrics.watchCalls(() => this.sessions.values());
    // The voice activity model loads once, before the first call needs it (a missing file is logged once).
    if (this.config.vad.engine === 'silero') sileroModel(this.config.vad.modelPath);
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
    for (const timer of this.returning.values()) clearTimeout(timer);
    for (const ws of this.wss.clients) ws.terminate();
    this.wss.close();
    for (const done of this.relayed.values()) done();
    await Promise.all(this.stops.map((stop) => stop().catch(() => undefined)));
  }

  private speakChannel(instanceId: string): string {
    return this.live.name(`voice:speak:${instanceId}`);
  }

  private spokenChannel(instanceId: string): string {
    return this.live.name(`voice:spoken:${instanceId}`);
  }

  /**
   * The HTTP server's `upgrade` handler: media stream paths of existing calls only. A handshake refused is answered
   * in HTTP with the general error body (RFC 6455 4.2.2): another path `404 ENDPOINT_NOT_FOUND`, a malformed call id
   * `422 INVALID_UUID`, an unknown call `404 RESOURCE_NOT_FOUND`.
   */
  handleUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => undefined);
    const match = PATH.exec(req.url ?? '');
    if (!match) return refuse(socket, new AppException('ENDPOINT_NOT_FOUND', 'Endpoint not found'));
    const callId = match[1].toLowerCase();
    if (!isUuid(callId))
      return refuse(socket, AppException.invalid('uuid', 'uuid must be a UUID', 'INVALID_UUID'));
    this.calls.workspaceOfCall(callId).then(
      (workspaceId) => {
        if (!workspaceId) return refuse(socket, AppException.notFound('Call'));
        this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, callId, workspaceId));
      },
      (err: Error) => {
        this.logger.warn({ callId, err: err.message }, 'media stream handshake failed');
        refuse(socket, new AppException('SERVICE_UNAVAILABLE', 'Service unavailable'));
      },
    );
  };

  private accept(ws: WebSocket, callId: string, workspaceId: string): void {
    let session: MediaSession | null = null;
    let starting = false;
    ws.on('message', (raw: RawData) => {
      let msg: StreamMessage;
      try {
        msg = JSON.parse((raw as Buffer).toString()) as StreamMessage;
      } catch {
        return;
      }
      if (msg.event === 'start' && !starting) {
        starting = true;
        void this.start(ws, workspaceId, callId, msg)
          .then((s) => (session = s))
          .catch((err: Error) => {
            this.logger.warn({ callId, err: err.message }, 'media stream start failed');
            ws.close(1011);
          });
      } else if (msg.event === 'media' && msg.media?.payload && msg.media.track !== 'outbound')
        this.sessions.get(callId)?.audio(twilioAudio(msg.media.payload));
      else if (msg.event === 'mark' && msg.mark?.name) this.sessions.get(callId)?.mark(msg.mark.name);
      else if (msg.event === 'dtmf' && msg.dtmf?.digit) this.sessions.get(callId)?.dtmf(msg.dtmf.digit);
      else if (msg.event === 'stop') ws.close(1000);
    });
    ws.on('close', () => void this.ended(callId, session, ws));
    ws.on('error', () => undefined);
  }

  private async start(
    ws: WebSocket,
    workspaceId: string,
    callId: string,
    msg: StreamMessage,
  ): Promise<MediaSession | null> {
    const token = msg.start?.customParameters?.token;
    if (!isValidStreamToken(this.config.auth.encryptionKey!, callId, token)) {
      ws.close(1008, 'invalid stream token');
      await this.runtime.end(workspaceId, callId, 'provider_error').catch(() => undefined);
      return null;
    }
    const call = await this.calls.findById(workspaceId, callId);
    if (!call || isEnded(call.status) || !call.agentId) {
      ws.close(1000);
      return null;
    }
    const streamSid = msg.start?.streamSid ?? '';
    const resumed = await this.resume(ws, callId, streamSid);
    if (resumed) return resumed;
    const link = new StreamLink(ws, streamSid);
    const session = await this.newSession(call, new TwilioTransport(link));
    this.register(callId, session);
    this.links.set(callId, link);
    await this.calls.claimOwner(workspaceId, callId, call.ownerId, this.instance.id);
    await this.redis.del(forwardingKey(callId), resumingKey(callId));
    if (call.status !== 'in-progress')
      await this.lifecycle.providerEvent(workspaceId, callId, {
        status: 'in-progress',
        detail: { source: 'media-stream', StreamSid: streamSid, CallSid: msg.start?.callSid ?? null },
      });
    await this.flushPending(session);
    return session;
  }

  /**
   * Opens the media session of a call on another transport (a browser's socket): this process holds it and owns the
   * call from now on. `answer` then answers the call.
   */
  async open(call: Call, transport: MediaTransport): Promise<MediaSession> {
    const session = await this.newSession(call, transport);
    this.register(call.id, session);
    await this.calls.claimOwner(call.workspaceId, call.id, call.ownerId, this.instance.id);
    return session;
  }

  /**
   * The call of a session opened with `open` is answered (`detail` goes to its provider log): the agent's first
   * message and the speech kept for it are spoken (resolves once they were played).
   */
  async answer(call: Call, session: MediaSession, detail: Record<string, unknown>): Promise<void> {
    if (call.status !== 'in-progress')
      await this.lifecycle.providerEvent(call.workspaceId, call.id, { status: 'in-progress', detail });
    await this.flushPending(session);
  }

  /** A session opened with `open` is over (its socket closed): it stops and is let go. */
  dismiss(callId: string, session: MediaSession): void {
    session.close();
    if (this.sessions.get(callId) === session) this.sessions.delete(callId);
  }

  /** A call's media session on its transport, with the agent's voice settings and the services it speaks through. */
  private async newSession(call: Call, transport: MediaTransport): Promise<MediaSession> {
    const { workspaceId, id: callId } = call;
    const agent = await this.agents.agent(workspaceId, call.agentId!);
    return new MediaSession(workspaceId, callId, transport, voiceSettings(agent), {
      ...callSpeech(
        this.usage.scope(workspaceId, callId),
        { stt: this.stt, tts: this.tts, stream: this.sttStream },
        {
          workspaceId,
          callId,
          mode: sttModeOf(agent.settings?.voice, this.config.speech.stt.mode),
          callLimit: this.config.limits.maxConcurrentCalls,
        },
      ),
      runtime: this.runtime,
      interrupted: (id) => this.conversations.markInterrupted(workspaceId, id),
      onTurnTiming: this.onTurnTiming,
      latency: (id, latency) => void this.turnLatency.record(workspaceId, id, latency),
      vad: this.config.vad,
    });
  }

  /** The call's session from now on (one left over from an earlier stream stops). */
  private register(callId: string, session: MediaSession): void {
    this.sessions.get(callId)?.close();
    this.stopWaiting(callId);
    this.sessions.set(callId, session);
  }

  /**
   * A stream that comes back after keys were pressed (a second `start` for a call whose session is here): the
   * session goes on on it, with what it said meanwhile. Null when this is not such a stream.
   */
  private async resume(ws: WebSocket, callId: string, streamSid: string): Promise<MediaSession | null> {
    const session = this.sessions.get(callId);
    const link = this.links.get(callId);
    if (!session || !link || session.closed) return null;
    if (!link.away && !(await this.redis.exists(resumingKey(callId)))) return null;
    if (this.sessions.get(callId) !== session) return null;
    link.attach(ws, streamSid);
    this.stopWaiting(callId);
    await this.redis.del(resumingKey(callId));
    this.logger.debug({ callId, streamSid }, 'media stream resumed');
    return session;
  }

  /** The stream went away for keys to be pressed: the session waits for it, then is let go. */
  private awaitReturn(callId: string, session: MediaSession): void {
    this.stopWaiting(callId);
    const timer = setTimeout(() => {
      this.returning.delete(callId);
      if (this.sessions.get(callId) !== session || !this.links.get(callId)?.away) return;
      this.logger.warn({ callId }, 'media stream did not come back after keys were pressed');
      session.close();
      this.sessions.delete(callId);
      this.links.delete(callId);
    }, RESUME_WAIT_MS);
    timer.unref();
    this.returning.set(callId, timer);
  }

  private stopWaiting(callId: string): void {
    clearTimeout(this.returning.get(callId));
    this.returning.delete(callId);
  }

  private async flushPending(session: MediaSession): Promise<void> {
    const key = this.pendingKey(session.callId);
    for (let raw = await this.redis.lpop(key); raw; raw = await this.redis.lpop(key)) {
      const { text, messageId } = JSON.parse(raw) as { text: string; messageId: string };
      void session.speak(text, messageId);
    }
  }

  private pendingKey(callId: string): string {
    return `voice:pending:${callId}`;
  }

  /**
   * The socket closed: the customer hung up, unless the call is being forwarded or keys are pressed on it (the stream
   * ends then too; after keys it comes back to the same session).
   */
  private async ended(callId: string, session: MediaSession | null, ws: WebSocket): Promise<void> {
    if (!session || this.sessions.get(callId) !== session) return;
    const link = this.links.get(callId);
    // The session already went on on a newer stream.
    if (link && !link.carries(ws)) return;
    if (link && (link.away || (await this.redis.exists(resumingKey(callId))))) {
      if (this.sessions.get(callId) !== session || !link.carries(ws)) return;
      link.hold();
      link.lost();
      this.awaitReturn(callId, session);
      return;
    }
    session.close();
    this.sessions.delete(callId);
    this.links.delete(callId);
    if (await this.redis.exists(forwardingKey(callId))) return;
    await this.lifecycle
      .providerEvent(session.workspaceId, callId, {
        status: 'completed',
        detail: { source: 'media-stream-stop' },
      })
      .catch((err: Error) => this.logger.debug({ callId, err: err.message }, 'stream end after the call'));
  }

  async speak(
    workspaceId: string,
    callId: string,
    text: string,
    messageId: string,
    provider?: string,
  ): Promise<void> {
    const session = this.sessions.get(callId);
    if (session) return session.speak(text, messageId);
    // Only a Twilio call's stream or a web call's socket can still open and play what is kept for it.
    if (provider !== undefined && !STREAMED.has(provider)) return;
    const call = await this.calls.findById(workspaceId, callId);
    if (!call || !STREAMED.has(call.provider) || isEnded(call.status)) return;
    const owner = call.ownerId;
    if (owner && owner !== this.instance.id && (await this.instance.isAlive(owner)))
      return this.relay(owner, { workspaceId, callId, text, messageId });
    await this.keep(callId, text, messageId);
  }

  /** Kept for the stream still to open (flushed by `start`). */
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

  /** Words another replica sent: spoken on the stream held here (else kept for it), then answered. */
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

  stop(callId: string): void {
    this.sessions.get(callId)?.stop();
  }

  hold(callId: string): void {
    this.links.get(callId)?.hold();
  }

  release(callId: string): void {
    this.links.get(callId)?.release();
  }

  /** The session of a call whose stream this process holds. */
  session(callId: string): MediaSession | undefined {
    return this.sessions.get(callId);
  }

  /** Open sessions on this process (the benchmark and health read it). */
  get size(): number {
    return this.sessions.size;
  }
}

/** Answers a refused WebSocket handshake in HTTP (the general error body) and closes the connection. */
export function refuse(socket: Duplex, e: AppException): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(generalBody(e));
  socket.end(
    `HTTP/1.1 ${e.status} ${STATUS_CODES[e.status] ?? 'Error'}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\nConnection: close\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
