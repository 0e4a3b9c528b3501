import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { AppException } from '@/common/errors/app.exception';
import { CallEnded, WrongCallStatus } from '@/common/errors/domain-errors';
import { isUuid } from '@/common/validation/validators';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import type { Call } from '@/modules/calls/call.entity';
import { CallLifecycle } from '@/modules/calls/runtime/call-lifecycle.service';
import { CallLive } from '@/modules/calls/runtime/call-live';
import { CallRecordings } from '@/modules/calls/api/call-recordings.service';
import { EndReason, isEnded } from '@/modules/calls/runtime/call-states';
import { CallsService } from '@/modules/calls/api/calls.service';
import { refuse } from '@/modules/voice/media/handshake-refusal';
import type { MediaSession } from '@/modules/voice/media/media-session';
import { MediaOpener } from '@/modules/voice/media/media-opener';
import { MediaSessions } from '@/modules/voice/media/media-sessions';
import type { ProviderError } from '@/providers/telephony/telephony.port';
import { WebCallConnection, WebCallHost } from './web-call.connection';
import type { WebTransport } from './web-transport';
import { WebCallsService } from './web-calls.service';

/** The socket of a web call; the token is the query's only parameter. */
const PATH = /^\/hooks\/v1\/web\/calls\/([^/?]*)\/?(?:\?(.*))?$/;
export const WEB_HOOKS_PREFIX = '/hooks/v1/web/';
/** Frames larger than this close the socket with 1009. */
export const MAX_FRAME_BYTES = 64 * 1024;

/** The address a request came from: the proxy's first forwarded address when proxies are trusted. */
export function clientIp(req: IncomingMessage, trustProxy: boolean): string {
  const forwarded = String(req.headers['x-forwarded-for'] ?? '')
    .split(',')[0]
    .trim();
  return (trustProxy && forwarded) || req.socket.remoteAddress || 'unknown';
}

/**
 * Web call sockets at wss://.../hooks/v1/web/calls/{uuid}?token=…: the handshake is refused in HTTP unless the
 * client token opens that call (401), from an allowed page origin (403), under the address's limit (429), on a call
 * that has not ended (409). The process holding the socket owns the call, as a media stream's does.
 */
@Injectable()
export class WebCallServer implements WebCallHost, OnApplicationShutdown {
  private readonly logger = new Logger(WebCallServer.name);
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  private readonly connections = new Set<WebCallConnection>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly service: WebCallsService,
    private readonly opener: MediaOpener,
    private readonly sessions: MediaSessions,
    private readonly calls: CallsService,
    private readonly lifecycle: CallLifecycle,
    private readonly live: CallLive,
    private readonly recordings: CallRecordings,
  ) {}

  /** Whether an upgrade request is for a web call. */
  handles(req: IncomingMessage): boolean {
    return (req.url ?? '').startsWith(WEB_HOOKS_PREFIX);
  }

  handleUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => undefined);
    const match = PATH.exec(req.url ?? '');
    if (!match) return refuse(socket, new AppException('ENDPOINT_NOT_FOUND', 'Endpoint not found'));
    const callId = match[1].toLowerCase();
    if (!isUuid(callId))
      return refuse(socket, AppException.invalid('uuid', 'uuid must be a UUID', 'INVALID_UUID'));
    const token = new URLSearchParams(match[2] ?? '').get('token');
    const origin = req.headers.origin;
    this.service
      .open({ callId, token, ip: clientIp(req, this.config.trustProxy), origin, host: req.headers.host })
      .then(
        (call) =>
          this.wss.handleUpgrade(req, socket, head, (ws) => {
            const connection = new WebCallConnection(ws, call, this);
            this.connections.add(connection);
            ws.once('close', () => this.connections.delete(connection));
          }),
        (err: Error) => {
          if (err instanceof AppException) return refuse(socket, err);
          // The token is never logged: the call and the reason only.
          this.logger.warn({ callId, err: err.message }, 'web call handshake failed');
          refuse(socket, new AppException('SERVICE_UNAVAILABLE', 'Service unavailable'));
        },
      );
  };

  /** The call's session on the page's socket; let go again when the call cannot be claimed for this process. */
  open(call: Call, transport: WebTransport): Promise<MediaSession> {
    return this.opener.open(call, transport);
  }

  answer(call: Call, session: MediaSession): Promise<void> {
    return this.opener.answer(call, session, { source: 'web' });
  }

  dismiss(call: Call, session: MediaSession): void {
    this.sessions.drop(call.id, session);
  }

  listen(call: Call, listener: Parameters<CallLive['listen']>[1]) {
    return this.live.listen(call.id, listener);
  }

  async end(call: Call, reason: EndReason, error: ProviderError | null): Promise<void> {
    const now = await this.calls.find(call.workspaceId, call.id);
    if (!now || isEnded(now.status)) return;
    const answered = now.status === 'in-progress';
    await this.lifecycle
      .move(call.workspaceId, call.id, answered ? 'completed' : 'canceled', {
        endReason: answered ? reason : 'canceled',
        error,
      })
      .catch((err: unknown) => {
        // Ended meanwhile by someone else (the agent, the API, a timer).
        if (err instanceof CallEnded || err instanceof WrongCallStatus) return;
        throw err;
      });
  }

  async record(call: Call, recorder: Parameters<WebCallHost['record']>[1]): Promise<void> {
    await this.recordings.store(call.workspaceId, call.id, recorder.wav(), {
      duration: Math.round(recorder.seconds),
      channels: 1,
    });
  }

  onApplicationShutdown(): void {
    for (const connection of this.connections) connection.shutdown();
    this.wss.close();
  }
}
