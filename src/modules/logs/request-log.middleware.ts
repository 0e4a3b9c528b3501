import { Injectable, NestMiddleware } from '@nestjs/common';
import type { Response } from 'express';
import type { TenantRequest } from '@/common/auth/request-context';
import { RequestLogBuffer } from './request-log-buffer';

/** Query keys whose values never reach the log. */
const SECRET_KEY = /token|secret|passw|pwd|key|signature|auth|session|cookie|code|otp|pin/i;
const MASK = '[masked]';

/** The query of a request URL with secret-like values (by key, or a value shaped like an API token) masked. */
export function maskedQuery(url: string): Record<string, string | string[]> | null {
  const at = url.indexOf('?');
  if (at < 0) return null;
  const params = new URLSearchParams(url.slice(at + 1));
  const out: Record<string, string | string[]> = {};
  for (const [key, raw] of params) {
    const value = SECRET_KEY.test(key) || /^(cap_|Bearer\s)/i.test(raw) ? MASK : raw.slice(0, 500);
    const prev = out[key];
    out[key] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return Object.keys(out).length ? out : null;
}

/**
 * The request log of tenant routes: when the answer finishes, one row (method, path, masked query, status,
 * duration, address, user agent, token) goes to the buffer; nothing waits for the database.
 */
@Injectable()
export class ApiRequestLogMiddleware implements NestMiddleware {
  constructor(private readonly buffer: RequestLogBuffer) {}

  use(req: TenantRequest, res: Response, next: () => void): void {
    if (!this.buffer.enabled) return next();
    const started = performance.now();
    res.once('finish', () => {
      const ws = req.workspace;
      if (!ws) return;
      const url = req.originalUrl ?? req.url;
      const q = url.indexOf('?');
      const ua = req.headers['user-agent'];
      this.buffer.push({
        workspaceId: ws.id,
        requestId: String(req.id ?? '').slice(0, 64),
        method: req.method,
        path: (q < 0 ? url : url.slice(0, q)).slice(0, 2048),
        query: q < 0 ? null : maskedQuery(url),
        status: res.statusCode,
        durationMs: Math.round(performance.now() - started),
        ip: req.ip ?? req.socket.remoteAddress ?? null,
        userAgent: typeof ua === 'string' ? ua.slice(0, 512) : null,
        tokenId: req.auth?.tokenId ?? null,
        createdAt: Date.now(),
      });
    });
    next();
  }
}
