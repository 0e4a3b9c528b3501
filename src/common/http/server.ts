import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { TlsMaterial } from './tls';

/** OpenSSL's verdicts on a connection whose first bytes are not a TLS record: plain HTTP, or something else. */
const NOT_TLS = new Set(['ERR_SSL_HTTP_REQUEST', 'ERR_SSL_WRONG_VERSION_NUMBER']);

export const HTTPS_REQUIRED_BODY = JSON.stringify({
  success: false,
  message: 'HTTPS is required',
  error: { code: 'HTTPS_REQUIRED', details: 'This API only accepts HTTPS (TLS 1.2 or newer)' },
});

/** The whole 403 HTTPS_REQUIRED answer, written as raw bytes on a connection that spoke plain HTTP to the TLS port. */
const HTTPS_REQUIRED_RESPONSE =
  'HTTP/1.1 403 Forbidden\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n' +
  `Content-Length: ${Buffer.byteLength(HTTPS_REQUIRED_BODY)}\r\n\r\n${HTTPS_REQUIRED_BODY}`;

/** What `/health/ready` answers while the process drains, so that balancers stop sending it new work. */
export const DRAINING_BODY = JSON.stringify({ status: 'draining', checks: {} });

export interface RunningServer {
  port: number;
  /** From now on `/health/ready` answers 503 and answers close their connection; requests are still served. */
  drain(): void;
  /**
   * Drains: lets in-flight requests finish until the deadline while the listener stays open (readiness probes
   * get their 503), then stops listening and cuts what is left.
   */
  close(deadlineMs: number): Promise<void>;
}

interface Options {
  port: number;
  host?: string;
  /** Without TLS material the server speaks plain HTTP (behind a TLS-terminating proxy). */
  tls?: TlsMaterial;
  /** WebSocket upgrades (the media streams). */
  upgrade?: (req: http.IncomingMessage, socket: import('node:stream').Duplex, head: Buffer) => void;
}

/**
 * HTTPS (TLS 1.2+ only) on the port. A client that speaks plain HTTP to it fails the handshake; OpenSSL says so
 * (`ERR_SSL_HTTP_REQUEST`, or `ERR_SSL_WRONG_VERSION_NUMBER` for other first bytes) and the client is answered
 * 403 HTTPS_REQUIRED in plain HTTP on the raw connection. TLS stays on the native socket handle, which keeps
 * encryption out of JavaScript (sniffing the first byte in JS would move every TLS byte through a JS stream).
 */
export async function listen(handler: http.RequestListener, options: Options): Promise<RunningServer> {
  const inFlight = new Set<http.ServerResponse>();
  let draining = false;
  const track: http.RequestListener = (req, res) => {
    if (draining) {
      res.setHeader('Connection', 'close');
      if (req.url === '/health/ready') {
        res.writeHead(503, { 'Content-Type': 'application/json; charset=utf-8' }).end(DRAINING_BODY);
        return;
      }
    }
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
    handler(req, res);
  };
  const startDraining = () => {
    draining = true;
    // Answers still to be written tell their clients to reconnect elsewhere.
    for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
  };

  const servers: http.Server[] = [];
  let front: net.Server;
  if (options.tls) {
    const secure = https.createServer(
      { key: options.tls.key, cert: options.tls.cert, minVersion: 'TLSv1.2', handshakeTimeout: 10_000 },
      track,
    );
    secure.on('tlsClientError', (err: NodeJS.ErrnoException, tlsSocket: TLSSocket) => {
      if (!NOT_TLS.has(err.code ?? '')) return;
      // The TCP connection under the failed TLS socket is still open: answer there, in plain HTTP.
      const raw = (tlsSocket as TLSSocket & { _parent?: net.Socket })._parent;
      if (raw && !raw.destroyed && raw.writable) raw.end(HTTPS_REQUIRED_RESPONSE);
    });
    servers.push(secure);
    front = secure;
  } else {
    const plain = http.createServer(track);
    servers.push(plain);
    front = plain;
  }
  if (options.upgrade) front.on('upgrade', options.upgrade);
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
    drain: startDraining,
    close: async (deadlineMs: number) => {
      startDraining();
      const until = Date.now() + deadlineMs;
      while (inFlight.size > 0 && Date.now() < until) {
        servers.forEach((s) => s.closeIdleConnections());
        await new Promise((r) => setTimeout(r, 50));
      }
      const closed = new Promise<void>((resolve) => front.close(() => resolve()));
      servers.forEach((s) => s.closeAllConnections());
      await closed;
    },
  };
}
