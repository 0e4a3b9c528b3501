import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Arrival, epoch ms. */
  at: number;
  /** The sender's port: one per connection, so requests sharing it came over one kept-alive connection. */
  remotePort: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Answer after this long (a slow or hanging receiver). */
  delayMs?: number;
}

/** A real HTTP receiver on 127.0.0.1 recording every request; each path answers through its own handler. */
export class WebhookReceiver {
  readonly received: Received[] = [];
  private readonly handlers = new Map<string, (r: Received, n: number) => Reply>();
  /** Requests per path so far (a handler's `n` without scanning every request received). */
  private readonly counts = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<WebhookReceiver> {
    const server = http.createServer();
    const receiver = new WebhookReceiver(server);
    server.on('request', (req, res) => receiver.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** How `path` answers; `n` counts its requests from 1. Unset paths answer 200. */
  on(path: string, handler: (r: Received, n: number) => Reply): void {
    this.handlers.set(path, handler);
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
        remotePort: req.socket.remotePort ?? 0,
      };
      this.received.push(r);
      const n = (this.counts.get(r.path) ?? 0) + 1;
      this.counts.set(r.path, n);
      const reply: Reply = (this.handlers.get(r.path) ?? ((): Reply => ({ status: 200, body: 'ok' })))(r, n);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status, reply.headers ?? {});
        res.end(reply.body ?? '');
      };
      if (!reply.delayMs) return send();
      const t = setTimeout(() => {
        this.timers.delete(t);
        send();
      }, reply.delayMs);
      this.timers.add(t);
    });
  }
}
