import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AppException } from '@/common/errors/app.exception';
import { generalBody } from '@/common/http/error-body';

/** Answers a refused WebSocket handshake in HTTP (the general error body) and closes the connection. */
export function refuse(socket: Duplex, e: AppException): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(generalBody(e));
  socket.end(
    `HTTP/1.1 ${e.status} ${STATUS_CODES[e.status] ?? 'Error'}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\nConnection: close\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
