import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import Redis from 'ioredis';
import { RawData, WebSocket, WebSocketServer } from 'ws';
import { AppException } from '@/common/errors/app.exception';
import { REDIS } from '@/common/redis/redis.module';
import { isUuid } from '@/common/validation/validators';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { CallLifecycle } from '@/modules/calls/runtime/call-lifecycle.service';
import { CallRuntime } from '@/modules/calls/runtime/call-runtime.service';
import { isEnded } from '@/modules/calls/runtime/call-states';
import { CallsService } from '@/modules/calls/api/calls.service';
import { forwardingKey, resumingKey } from '@/providers/telephony/twilio.telephony';
import { isValidStreamToken } from '@/providers/twilio/stream-token';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { refuse } from './handshake-refusal';
import type { MediaSession } from './media-session';
import { MediaOpener } from './media-opener';
import { MediaSessions } from './media-sessions';
import { StreamLink } from './stream-link';
import { twilioAudio, TwilioTransport } from './twilio-transport';

const PATH = /^\/hooks\/v1\/twilio\/media\/([^/?]*)\/?(?:\?.*)?$/;
/** How long a session waits for its stream to come back after keys were pressed, before it is let go. */
const RESUME_WAIT_MS = 60_000;

interface StreamMessage {
  event?: string;
  start?: { streamSid?: string; callSid?: string; customParameters?: Record<string, string> };
  media?: { payload?: string; track?: string };
  mark?: { name?: string };
  dtmf?: { digit?: string };
}

/**
 * Twilio's bidirectional Media Streams at wss://.../hooks/v1/twilio/media/{callUuid}: the handshake, the stream's
 * messages, and the stream's start, end and return after keys were pressed. The call's session is opened by
 * MediaOpener and held by MediaSessions (which relays speech decided on other replicas): the process holding the
 * socket owns the call.
 */
@Injectable()
export class MediaStreamServer implements OnApplicationShutdown {
  private readonly logger = new Logger(MediaStreamServer.name);
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  /** Sessions waiting for their stream to come back, and when they stop waiting. */
  private readonly returning = new Map<string, NodeJS.Timeout>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly calls: CallsService,
    private readonly runtime: CallRuntime,
    private readonly lifecycle: CallLifecycle,
    private readonly sessions: MediaSessions,
    private readonly opener: MediaOpener,
  ) {}

  onApplicationShutdown(): void {
    for (const timer of this.returning.values()) clearTimeout(timer);
    for (const ws of this.wss.clients) ws.terminate();
    this.wss.close();
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
    this.calls.workspaceOf(callId).then(
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

  private accept(ws: WebSocket, callId: string, workspaceId: WorkspaceId): void {
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
        this.sessions.session(callId)?.audio(twilioAudio(msg.media.payload));
      else if (msg.event === 'mark' && msg.mark?.name) this.sessions.session(callId)?.mark(msg.mark.name);
      else if (msg.event === 'dtmf' && msg.dtmf?.digit) this.sessions.session(callId)?.dtmf(msg.dtmf.digit);
      else if (msg.event === 'stop') ws.close(1000);
    });
    ws.on('close', () => void this.ended(callId, session, ws));
    ws.on('error', () => undefined);
  }

  /**
   * The stream's `start`: a new session for the call, or the call's session going on on a stream that came back. A
   * session given this stream is let go when the start fails after all (the socket closes then, with no session to
   * end).
   */
  private async start(
    ws: WebSocket,
    workspaceId: WorkspaceId,
    callId: string,
    msg: StreamMessage,
  ): Promise<MediaSession | null> {
    const token = msg.start?.customParameters?.token;
    if (!isValidStreamToken(this.config.auth.encryptionKey!, callId, token)) {
      ws.close(1008, 'invalid stream token');
      await this.runtime.end(workspaceId, callId, 'provider_error').catch(() => undefined);
      return null;
    }
    const call = await this.calls.find(workspaceId, callId);
    if (!call || isEnded(call.status) || !call.agentId) {
      ws.close(1000);
      return null;
    }
    const streamSid = msg.start?.streamSid ?? '';
    const resumed = await this.resume(ws, callId, streamSid);
    if (resumed) return resumed;
    const link = new StreamLink(ws, streamSid);
    this.stopWaiting(callId);
    const session = await this.opener.open(call, new TwilioTransport(link), link);
    try {
      await this.redis.del(forwardingKey(callId), resumingKey(callId));
      await this.opener.answer(call, session, {
        source: 'media-stream',
        StreamSid: streamSid,
        CallSid: msg.start?.callSid ?? null,
      });
    } catch (err) {
      this.sessions.drop(callId, session);
      throw err;
    }
    return session;
  }

  /**
   * A stream that comes back after keys were pressed (a second `start` for a call whose session is here): the
   * session goes on on it, with what it said meanwhile. Null when this is not such a stream.
   */
  private async resume(ws: WebSocket, callId: string, streamSid: string): Promise<MediaSession | null> {
    const session = this.sessions.session(callId);
    const link = this.sessions.link(callId);
    if (!session || !link || session.closed) return null;
    if (!link.away && !(await this.redis.exists(resumingKey(callId)))) return null;
    if (this.sessions.session(callId) !== session) return null;
    link.attach(ws, streamSid);
    this.stopWaiting(callId);
    try {
      await this.redis.del(resumingKey(callId));
    } catch (err) {
      this.sessions.drop(callId, session);
      throw err;
    }
    this.logger.debug({ callId, streamSid }, 'media stream resumed');
    return session;
  }

  /** The stream went away for keys to be pressed: the session waits for it, then is let go. */
  private awaitReturn(callId: string, session: MediaSession): void {
    this.stopWaiting(callId);
    const timer = setTimeout(() => {
      this.returning.delete(callId);
      if (this.sessions.session(callId) !== session || !this.sessions.link(callId)?.away) return;
      this.logger.warn({ callId }, 'media stream did not come back after keys were pressed');
      this.sessions.drop(callId, session);
    }, RESUME_WAIT_MS);
    timer.unref();
    this.returning.set(callId, timer);
  }

  private stopWaiting(callId: string): void {
    clearTimeout(this.returning.get(callId));
    this.returning.delete(callId);
  }

  /**
   * The socket closed: the customer hung up, unless the call is being forwarded or keys are pressed on it (the stream
   * ends then too; after keys it comes back to the same session).
   */
  private async ended(callId: string, session: MediaSession | null, ws: WebSocket): Promise<void> {
    if (!session || this.sessions.session(callId) !== session) return;
    const link = this.sessions.link(callId);
    // The session already went on on a newer stream.
    if (link && !link.carries(ws)) return;
    if (link && (link.away || (await this.redis.exists(resumingKey(callId))))) {
      if (this.sessions.session(callId) !== session || !link.carries(ws)) return;
      link.hold();
      link.lost();
      this.awaitReturn(callId, session);
      return;
    }
    this.sessions.drop(callId, session);
    if (await this.redis.exists(forwardingKey(callId))) return;
    await this.lifecycle
      .providerEvent(session.workspaceId, callId, {
        status: 'completed',
        detail: { source: 'media-stream-stop' },
      })
      .catch((err: Error) => this.logger.debug({ callId, err: err.message }, 'stream end after the call'));
  }
}
