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
 * HTTPS (TLS 1.2+ only) on the port. A client that speaks plain HTTP to it fails the handshake; OpenSSL says so
 * (`ERR_SSL_HTTP_REQUEST`, or `ERR_SSL_WRONG_VERSION_NUMBER` for other first bytes) and the client is answered
 * 403 HTTPS_REQUIRED in plain HTTP on the raw connection. TLS stays on the native socket handle, which keeps
 * encryption out of JavaScript (sniffing the first byte in JS would move every TLS byte through a JS stream).
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
