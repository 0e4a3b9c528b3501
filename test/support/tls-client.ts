import * as tls from 'node:tls';

/** Opens a TLS connection pinned to one protocol version; resolves with the protocol or the error code. */
export function handshake(
  port: number,
  version: tls.SecureVersion,
): Promise<{ ok: boolean; protocol?: string; code?: string }> {
  return new Promise((resolve) => {
    const socket = tls.connect({
      host: '127.0.0.1',
      port,
      servername: 'localhost',
      rejectUnauthorized: false,
      minVersion: version,
      maxVersion: version,
      ciphers: 'DEFAULT:@SECLEVEL=0', // lets this client offer TLS 1.1 at all
    });
    socket.once('secureConnect', () => {
      const protocol = socket.getProtocol() ?? undefined;
      socket.end();
      resolve({ ok: true, protocol });
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve({ ok: false, code: err.code }));
  });
}
