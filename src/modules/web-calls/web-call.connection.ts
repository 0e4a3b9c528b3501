import { Logger } from '@nestjs/common';
import type { RawData, WebSocket } from 'ws';
import { CallEnded } from '@/common/errors/domain-errors';
import type { Call } from '@/modules/calls/call.entity';
import type { LiveEvent } from '@/modules/calls/runtime/call-live';
import type { EndReason } from '@/modules/calls/runtime/call-states';
import type { ProviderError } from '@/providers/telephony/telephony.port';
import type { MediaSession } from '@/modules/voice/media/media-session';
import { WebCallRecorder } from './web-call-recorder';
import { WebTransport } from './web-transport';

/** 20 ms of 16 kHz 16-bit mono PCM: the frame the session takes and the agent's audio comes in. */
export const FRAME_BYTES = 640;
/** The page must say `start` this soon after the socket opens. */
const START_WAIT_MS = 10_000;
/** A socket that answers no ping for two of these is gone (a dropped network sends no close). */
const PING_MS = 15_000;
const MAX_NAME = 200;
/** Why a page ends a call it cannot take (`end` with a reason), as the call's error tells it. */
const PAGE_REASONS: Record<string, string> = {
  microphone_denied: 'The caller did not allow the microphone',
  microphone_missing: 'The caller has no microphone',
  audio_unavailable: "The caller's browser cannot play the call",
};

/** What a connection needs from the server: the call's media, its ending, its feed and its recording. */
export interface WebCallHost {
  open(call: Call, transport: WebTransport): Promise<MediaSession>;
  answer(call: Call, session: MediaSession): Promise<void>;
  dismiss(call: Call, session: MediaSession): void;
  listen(call: Call, listener: (e: LiveEvent) => void): Promise<() => Promise<void>>;
  /** Ends the call (`canceled` when not answered yet); a call that ended already stays as it is. */
  end(call: Call, reason: EndReason, error: ProviderError | null): Promise<void>;
  record(call: Call, recorder: WebCallRecorder): Promise<void>;
}

interface ClientMessage {
  type?: unknown;
  name?: unknown;
  digit?: unknown;
  reason?: unknown;
  sample_rate?: unknown;
}

type State = 'waiting' | 'starting' | 'live' | 'closed';

/** Why the socket closed, as the call's `error` and close frame tell it. */
interface Problem {
  code: number;
  message: string;
}

/**
 * One browser's socket on one web call (the web call protocol, docs/api.md): `start` opens the media session and
 * answers the call; binary frames are the caller's audio; `mark`, `dtmf` and `end` are the page's; the agent's audio,
 * its marks, `clear`, the transcript and the call's status go back. The socket closing ends the call: the page
 * hanging up is `customer_hangup`, a broken protocol or a lost connection `provider_error` with the reason.
 */
export class WebCallConnection {
  private readonly logger = new Logger(WebCallConnection.name);
  private state: State = 'waiting';
  private session: MediaSession | null = null;
  private transport: WebTransport;
  private readonly recorder: WebCallRecorder | null;
  private stopFeed: (() => Promise<void>) | null = null;
  private problem: Problem | null = null;
  /** The page said `end` (with its reason when it gave one). */
  private hungUp: { reason: string | null } | null = null;
  /** The call ended on its own (the agent, the API, a timer): the socket closing ends nothing. */
  private callEnded = false;
  /** A partial frame of the caller's audio, until the rest of it arrives. */
  private carry: Buffer = Buffer.alloc(0);
  private startTimer: NodeJS.Timeout;
  private pingTimer: NodeJS.Timeout;
  private alive = true;

  constructor(
    private readonly ws: WebSocket,
    private readonly call: Call,
    private readonly host: WebCallHost,
  ) {
    this.recorder = call.record ? new WebCallRecorder() : null;
    this.transport = new WebTransport(ws, this.recorder);
    this.startTimer = setTimeout(() => this.violate(1008, 'start was not sent within 10 s'), START_WAIT_MS);
    this.pingTimer = setInterval(() => {
      if (!this.alive) return void ws.terminate();
      this.alive = false;
      ws.ping();
    }, PING_MS);
    ws.on('pong', () => (this.alive = true));
    ws.on('message', (data: RawData, binary: boolean) => this.message(data as Buffer, binary));
    ws.on('error', (err: Error & { code?: string }) => {
      // The socket library refused a frame and closes with its code (1009 too big, 1007 bad UTF-8, ...).
      this.problem ??= {
        code: err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' ? 1009 : 1002,
        message:
          err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' ? 'A frame was larger than 64 KiB' : err.message,
      };
    });
    ws.on('close', (code: number) => void this.closed(code));
  }

  private message(data: Buffer, binary: boolean): void {
    if (this.state === 'closed') return;
    if (binary) return this.audio(data);
    let msg: ClientMessage;
    try {
      msg = JSON.parse(data.toString('utf8')) as ClientMessage;
    } catch {
      return this.violate(1003, 'A text frame was not JSON');
    }
    if (!msg || typeof msg !== 'object' || typeof msg.type !== 'string')
      return this.violate(1003, 'A message is a JSON object with a type');
    switch (msg.type) {
      case 'start':
        if (this.state !== 'waiting') return this.violate(1008, 'start was sent twice');
        if (msg.sample_rate !== undefined && msg.sample_rate !== 16000)
          return this.violate(1003, 'The audio must be 16 kHz 16-bit mono PCM (sample_rate 16000)');
        return void this.start();
      case 'mark':
        if (typeof msg.name !== 'string' || msg.name.length > MAX_NAME)
          return this.violate(1003, 'mark needs its name');
        return this.session?.mark(msg.name);
      case 'dtmf':
        if (typeof msg.digit !== 'string' || !/^[0-9*#]$/.test(msg.digit))
          return this.violate(1003, 'dtmf needs one digit of 0-9, * or #');
        return this.session?.dtmf(msg.digit);
      case 'end':
        this.hungUp = {
          reason: typeof msg.reason === 'string' && /^[a-z_]{1,40}$/.test(msg.reason) ? msg.reason : null,
        };
        return this.ws.close(1000, 'hung up');
      case 'ping':
        return this.transport.send({ type: 'pong' });
      default:
        return this.violate(1008, `Unknown message type ${msg.type.slice(0, 32)}`);
    }
  }

  private audio(data: Buffer): void {
    if (this.state !== 'live' && this.state !== 'starting')
      return this.violate(1008, 'Audio was sent before start');
    if (data.length % 2) return this.violate(1003, 'Audio is 16-bit PCM: an even number of bytes');
    this.recorder?.add('caller', data);
    const session = this.session;
    if (!session) return;
    let bytes = this.carry.length ? Buffer.concat([this.carry, data]) : data;
    while (bytes.length >= FRAME_BYTES) {
      // A copy: the session keeps samples of a turn, and Int16Array needs an even offset.
      const frame = new Int16Array(FRAME_BYTES / 2);
      Buffer.from(frame.buffer).set(bytes.subarray(0, FRAME_BYTES));
      session.audio(frame);
      bytes = bytes.subarray(FRAME_BYTES);
    }
    this.carry = Buffer.from(bytes);
  }

  /** `start`: the session opens here (the call is this process's), the page is told, then the call is answered. */
  private async start(): Promise<void> {
    this.state = 'starting';
    clearTimeout(this.startTimer);
    try {
      this.stopFeed = await this.host.listen(this.call, (e) => this.feed(e));
      const session = await this.host.open(this.call, this.transport);
      if (this.gone) return this.host.dismiss(this.call, session);
      this.session = session;
      this.state = 'live';
      this.transport.send({ type: 'started', call_uuid: this.call.id, sample_rate: 16000, frame_bytes: 640 });
      await this.host.answer(this.call, session);
    } catch (err) {
      if (this.gone) return;
      const ended = err instanceof CallEnded;
      if (!ended)
        this.logger.warn({ callId: this.call.id, err: (err as Error).message }, 'web call start failed');
      this.problem ??= { code: 1011, message: ended ? 'The call has ended' : 'The call could not start' };
      this.ws.close(1011, this.problem.message);
    }
  }

  /** The socket closed (read after an await: the state may have moved meanwhile). */
  private get gone(): boolean {
    return this.state === 'closed';
  }

  /** The call's live feed: the agent's words, its status, its end. */
  private feed(e: LiveEvent): void {
    if (e.event === 'transcript') {
      const m = e.data as { uuid: string; sender: string; content: string };
      if (m.sender === 'agent')
        this.transport.send({ type: 'transcript', role: 'agent', text: m.content, message_uuid: m.uuid });
    } else if (e.event === 'status') {
      this.transport.send({ type: 'call', status: (e.data as { status: string }).status });
    } else if (e.event === 'end') {
      const c = e.data as { status: string; end_reason: string | null };
      this.callEnded = true;
      this.transport.send({ type: 'end', status: c.status, end_reason: c.end_reason });
      this.ws.close(1000, c.end_reason ?? 'call ended');
    }
  }

  /** The server stops: the page is told, and the call ends as a provider error. */
  shutdown(): void {
    this.violate(1001, 'The server restarted');
  }

  /** Closes the socket for a broken protocol; the call ends with the reason. */
  private violate(code: number, message: string): void {
    if (this.state === 'closed') return;
    this.problem ??= { code, message };
    this.transport.send({ type: 'error', code, message });
    this.ws.close(code, message.slice(0, 120));
  }

  private async closed(code: number): Promise<void> {
    this.state = 'closed';
    clearTimeout(this.startTimer);
    clearInterval(this.pingTimer);
    if (this.session) this.host.dismiss(this.call, this.session);
    await this.stopFeed?.().catch(() => undefined);
    if (!this.callEnded) {
      const { reason, error } = this.outcome(code);
      await this.host
        .end(this.call, reason, error)
        .catch((err: Error) =>
          this.logger.warn({ callId: this.call.id, err: err.message }, 'web call end failed'),
        );
    }
    if (this.recorder && this.recorder.seconds > 0)
      await this.host
        .record(this.call, this.recorder)
        .catch((err: Error) =>
          this.logger.warn({ callId: this.call.id, err: err.message }, 'web call recording failed'),
        );
  }

  /** Why the call ends: the page hung up (or left) or it broke the protocol, or the connection was lost. */
  private outcome(code: number): { reason: EndReason; error: ProviderError | null } {
    if (this.problem)
      return {
        reason: 'provider_error',
        error: { code: `WEB_${this.problem.code}`, message: this.problem.message },
      };
    const why = this.hungUp?.reason;
    if (why)
      return {
        reason: 'customer_hangup',
        error: {
          code: `WEB_${why.toUpperCase()}`,
          message: PAGE_REASONS[why] ?? `The page ended the call (${why})`,
        },
      };
    if (this.hungUp || code === 1000 || code === 1001 || code === 1005)
      return { reason: 'customer_hangup', error: null };
    return {
      reason: 'provider_error',
      error: { code: `WEB_${code}`, message: 'The connection to the page was lost' },
    };
  }
}
