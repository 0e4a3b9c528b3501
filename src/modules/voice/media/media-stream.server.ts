import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import Redis from 'ioredis';
import { RawData, WebSocket, WebSocketServer } from 'ws';
import { REDIS } from '@/common/redis/redis.module';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { CallInstance } from '@/modules/calls/call-instance';
import { CallLifecycle } from '@/modules/calls/call-lifecycle.service';
import { CallMedia, CallRuntime } from '@/modules/calls/call-runtime.service';
import { isEnded } from '@/modules/calls/call-states';
import { CallsRepository } from '@/modules/calls/calls.repository';
import { AgentContextReader } from '@/modules/conversations/agent-context';
import { ConversationsService } from '@/modules/conversations/conversations.service';
import { SPEECH_TO_TEXT, SpeechToText, TEXT_TO_SPEECH, TextToSpeech } from '@/providers/speech/speech.port';
import { forwardingKey } from '@/providers/telephony/twilio.telephony';
import { isValidStreamToken } from '@/providers/twilio/stream-token';
import { MediaSession } from './media-session';
import { voiceSettings } from './voice-settings';

const PATH = /^\/hooks\/v1\/twilio\/media\/([0-9a-f-]{36})\/?(?:\?.*)?$/i;
const PENDING_TTL_SECONDS = 600;

interface StreamMessage {
  event?: string;
  start?: { streamSid?: string; callSid?: string; customParameters?: Record<string, string> };
  media?: { payload?: string; track?: string };
  mark?: { name?: string };
  dtmf?: { digit?: string };
}

/**
 * Twilio's bidirectional Media Streams at wss://.../hooks/v1/twilio/media/{callUuid}. The process holding the
 * socket owns the call: it runs its turns and performs its live actions. Speech meant for a call whose socket is
 * not open yet (the first message racing the stream's start) waits in Redis until it opens.
 */
@Injectable()
export class MediaStreamServer implements CallMedia, OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(MediaStreamServer.name);
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  private readonly sessions = new Map<string, MediaSession>();

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
  ) {}

  onModuleInit(): void {
    this.runtime.media = this;
  }

  onApplicationShutdown(): void {
    for (const s of this.sessions.values()) s.close();
    for (const ws of this.wss.clients) ws.terminate();
    this.wss.close();
  }

  /** The HTTP server's `upgrade` handler: media stream paths only. */
  handleUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const match = PATH.exec(req.url ?? '');
    if (!match) {
      socket.destroy();
      return;
    }
    const callId = match[1].toLowerCase();
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, callId));
  };

  private accept(ws: WebSocket, callId: string): void {
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
        void this.start(ws, callId, msg)
          .then((s) => (session = s))
          .catch((err: Error) => {
            this.logger.warn({ callId, err: err.message }, 'media stream start failed');
            ws.close(1011);
          });
      } else if (msg.event === 'media' && msg.media?.payload && msg.media.track !== 'outbound')
        this.sessions.get(callId)?.media(msg.media.payload);
      else if (msg.event === 'mark' && msg.mark?.name) this.sessions.get(callId)?.mark(msg.mark.name);
      else if (msg.event === 'dtmf' && msg.dtmf?.digit) this.sessions.get(callId)?.dtmf(msg.dtmf.digit);
      else if (msg.event === 'stop') ws.close(1000);
    });
    ws.on('close', () => void this.ended(callId, session));
    ws.on('error', () => undefined);
  }

  private async start(ws: WebSocket, callId: string, msg: StreamMessage): Promise<MediaSession | null> {
    const workspaceId = await this.calls.workspaceOfCall(callId);
    const token = msg.start?.customParameters?.token;
    if (!workspaceId || !isValidStreamToken(this.config.auth.encryptionKey!, callId, token)) {
      ws.close(1008, 'invalid stream token');
      if (workspaceId) await this.runtime.end(workspaceId, callId, 'provider_error').catch(() => undefined);
      return null;
    }
    const call = await this.calls.findById(workspaceId, callId);
    if (!call || isEnded(call.status) || !call.agentId) {
      ws.close(1000);
      return null;
    }
    const agent = await this.agents.agent(workspaceId, call.agentId);
    const streamSid = msg.start?.streamSid ?? '';
    const session = new MediaSession(
      workspaceId,
      callId,
      streamSid,
      (m) => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify(m)),
      voiceSettings(agent),
      {
        stt: this.stt,
        tts: this.tts,
        runtime: this.runtime,
        interrupted: (id) => this.conversations.markInterrupted(workspaceId, id),
      },
    );
    this.sessions.get(callId)?.close();
    this.sessions.set(callId, session);
    await this.calls.claimOwner(workspaceId, callId, call.ownerId, this.instance.id);
    await this.redis.del(forwardingKey(this.config.redis.prefix, callId));
    if (call.status !== 'in-progress')
      await this.lifecycle.providerEvent(workspaceId, callId, {
        status: 'in-progress',
        detail: { source: 'media-stream', StreamSid: streamSid, CallSid: msg.start?.callSid ?? null },
      });
    await this.flushPending(session);
    return session;
  }

  private async flushPending(session: MediaSession): Promise<void> {
    const key = this.pendingKey(session.callId);
    for (let raw = await this.redis.lpop(key); raw; raw = await this.redis.lpop(key)) {
      const { text, messageId } = JSON.parse(raw) as { text: string; messageId: string };
      void session.speak(text, messageId);
    }
  }

  private pendingKey(callId: string): string {
    return `${this.config.redis.prefix}:voice:pending:${callId}`;
  }

  /** The socket closed: the customer hung up, unless the call is being forwarded (the stream ends then too). */
  private async ended(callId: string, session: MediaSession | null): Promise<void> {
    if (!session || this.sessions.get(callId) !== session) return;
    session.close();
    this.sessions.delete(callId);
    if (await this.redis.exists(forwardingKey(this.config.redis.prefix, callId))) return;
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
    // Only a Twilio call's stream can still open and play what is kept for it.
    if (provider !== undefined && provider !== 'twilio') return;
    const call = await this.calls.findById(workspaceId, callId);
    if (call?.provider !== 'twilio' || isEnded(call.status)) return;
    const key = this.pendingKey(callId);
    await this.redis.rpush(key, JSON.stringify({ text, messageId }));
    await this.redis.expire(key, PENDING_TTL_SECONDS);
  }

  stop(callId: string): void {
    this.sessions.get(callId)?.stop();
  }

  /** Open sessions on this process (the benchmark and health read it). */
  get size(): number {
    return this.sessions.size;
  }
}
