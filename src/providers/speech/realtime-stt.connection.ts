import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import { readServerEvent, ServerEvent } from './realtime-stt.protocol';

/** Why a connection could not be had: `refused` (401/403, or an error answering the session) is not retried. */
export class ConnectFailure extends Error {
  constructor(
    message: string,
    readonly refused: boolean,
  ) {
    super(message);
  }
}

export interface ConnectOptions {
  url: string;
  headers: Record<string, string>;
  /** Sent once the socket is open; the connection is ready when the service acknowledges it. */
  session: object;
  /** The longest the upgrade and the acknowledgement may take together. */
  timeoutMs: number;
  /** A ping this often; a connection that has not answered the previous one is dead (ended, then `lost`). */
  keepAliveMs: number;
}

/**
 * One WebSocket to the realtime service: ready once the session update is acknowledged; after that, every server
 * event is emitted as `event`, and an end it did not ask for as `lost` (once).
 */
export class RealtimeConnection extends EventEmitter<{ event: [ServerEvent]; lost: [string] }> {
  private closedByUs = false;
  private keepAlive?: NodeJS.Timeout;

  private constructor(private readonly ws: WebSocket) {
    super();
  }

  static open(o: ConnectOptions): Promise<RealtimeConnection> {
    const ws = new WebSocket(o.url, { headers: o.headers, handshakeTimeout: o.timeoutMs });
    const conn = new RealtimeConnection(ws);
    return new Promise((resolve, reject) => {
      let ready = false;
      const fail = (f: ConnectFailure) => {
        if (ready) return;
        ready = true;
        clearTimeout(timer);
        ws.removeAllListeners('message');
        ws.terminate();
        reject(f);
      };
      const timer = setTimeout(
        () => fail(new ConnectFailure(`no session within ${o.timeoutMs} ms`, false)),
        o.timeoutMs,
      );
      ws.on('unexpected-response', (_req, res) => {
        const status = res.statusCode ?? 0;
        res.resume();
        fail(new ConnectFailure(`upgrade answered HTTP ${status}`, status === 401 || status === 403));
      });
      ws.on('error', (err) => fail(new ConnectFailure(err.message, false)));
      ws.once('open', () => ws.send(JSON.stringify(o.session)));
      ws.on('message', (raw: WebSocket.RawData) => {
        const event = readServerEvent((raw as Buffer).toString());
        if (ready) return void conn.emit('event', event);
        if (event.kind === 'error') fail(new ConnectFailure(`session refused: ${event.message}`, true));
        else if (event.kind === 'ready') {
          ready = true;
          clearTimeout(timer);
          conn.watch(o.keepAliveMs);
          resolve(conn);
        }
      });
      ws.on('close', (code: number) => {
        clearInterval(conn.keepAlive);
        if (!ready) return fail(new ConnectFailure(`closed with ${code} before the session`, false));
        if (!conn.closedByUs) conn.emit('lost', `closed with ${code}`);
      });
    });
  }

  /** Pings every `ms`: a socket gone silent (no close ever comes) is ended and reported lost. */
  private watch(ms: number): void {
    let answered = true;
    this.ws.on('pong', () => (answered = true));
    this.keepAlive = setInterval(() => {
      if (!answered) return void this.ws.terminate();
      answered = false;
      this.ws.ping();
    }, ms);
    this.keepAlive.unref();
  }

  send(event: object): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(event));
  }

  close(): void {
    this.closedByUs = true;
    clearInterval(this.keepAlive);
    this.removeAllListeners();
    if (this.ws.readyState === WebSocket.CONNECTING) this.ws.terminate();
    else this.ws.close(1000);
  }
}
