import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import type { TlsMaterial } from './tls';

const TLS_HANDSHAKE = 0x16;

export const HTTPS_REQUIRED_BODY = JSON.stringify({
  success: false,
  message: 'HTTPS is required',
  error: { code: 'HTTPS_REQUIRED', details: 'This API only accepts HTTPS (TLS 1.2 or newer)' },
});

/** Answers every plain-HTTP request 403 HTTPS_REQUIRED, before anything else is looked at. */
export function rejectPlainHttp(_req: http.IncomingMessage, res: http.ServerResponse): void {
  res.writeHead(403, { 'Content-Type': 'application/json; charset=utf-8', Connection: 'close' });
  res.end(HTTPS_REQUIRED_BODY);
}

export interface RunningServer {
  port: number;
  /** Stops accepting, lets in-flight requests finish until the deadline, then cuts what is left. */
  close(deadlineMs: number): Promise<void>;
}

interface Options {
  port: number;
  host?: string;
  /** Without TLS material the server speaks plain HTTP (behind a TLS-terminating proxy). */
  tls?: TlsMaterial;
}

/**
 * One port for both: the first byte of a connection tells a TLS handshake (to the HTTPS server, TLS 1.2+ only) from
 * plain HTTP (answered 403).
 */
export async function listen(handler: http.RequestListener, options: Options): Promise<RunningServer> {
  let inFlight = 0;
  let draining = false;
  const track: http.RequestListener = (req, res) => {
    inFlight++;
    res.once('close', () => inFlight--);
    if (draining) res.setHeader('Connection', 'close');
    handler(req, res);
  };

  const servers: http.Server[] = [];
  let front: net.Server;
  if (options.tls) {
    const secure = https.createServer(
      { key: options.tls.key, cert: options.tls.cert, minVersion: 'TLSv1.2', honorCipherOrder: true },
      track,
    );
    const plain = http.createServer(rejectPlainHttp);
    servers.push(secure, plain);
    front = net.createServer((socket) => {
      socket.once('error', () => socket.destroy());
      socket.setTimeout(10_000, () => socket.destroy()); // a connection that never speaks
      socket.once('data', (chunk: Buffer) => {
        socket.setTimeout(0);
        socket.pause();
        socket.unshift(chunk);
        (chunk[0] === TLS_HANDSHAKE ? secure : plain).emit('connection', socket);
        process.nextTick(() => socket.resume());
      });
    });
  } else {
    const plain = http.createServer(track);
    servers.push(plain);
    front = plain;
  }
  for (const s of servers) {
    s.keepAliveTimeout = 65_000;
    s.headersTimeout = 66_000;
    s.requestTimeout = 300_000;
  }

  await new Promise<void>((resolve, reject) => {
    front.once('error', reject);
    front.listen(options.port, options.host, () => resolve());
  });
  const address = front.address() as net.AddressInfo;

  return {
    port: address.port,
    close: async (deadlineMs: number) => {
      draining = true;
      const closed = new Promise<void>((resolve) => front.close(() => resolve()));
      const until = Date.now() + deadlineMs;
      while (inFlight > 0 && Date.now() < until) {
        servers.forEach((s) => s.closeIdleConnections());
        await new Promise((r) => setTimeout(r, 50));
      }
      servers.forEach((s) => s.closeAllConnections());
      await closed;
    },
  };
}
