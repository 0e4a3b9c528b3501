import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppException } from '@/common/errors/app.exception';
import { generalBody } from '@/common/http/error-body';

const digest = (v: string) => createHash('sha256').update(v).digest();

/**
 * Checks `Authorization` against ADMIN_API_KEY (constant time): `Bearer <key>`, or with `basic` also HTTP Basic
 * with the key as password (a browser's prompt, for the queue dashboard). Throws the contract's error: 404 without
 * a configured key (the route does not exist), 401 for a missing or wrong key.
 */
export function assertAdminKey(header: string | undefined, key: string | undefined, basic = false): void {
  if (!key) throw new AppException('ENDPOINT_NOT_FOUND', 'Endpoint not found');
  if (header === undefined) throw new AppException('MISSING_AUTH_TOKEN', 'Authorization header is missing');
  const [scheme, value = ''] = header.trim().split(/\s+/, 2);
  let given: string | null = null;
  if (/^bearer$/i.test(scheme)) given = value;
  else if (basic && /^basic$/i.test(scheme)) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    given = decoded.slice(decoded.indexOf(':') + 1);
  }
  if (given === null || !timingSafeEqual(digest(given), digest(key)))
    throw new AppException('INVALID_AUTH_TOKEN', 'Invalid admin key');
}

/**
 * The admin key as plain Node middleware (routes outside Nest: the queue dashboard, the worker's metrics): answers
 * the refusal itself, in the API's error body, or calls `next`.
 */
export function adminKeyMiddleware(key: string | undefined, options: { basicRealm?: string } = {}) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    try {
      assertAdminKey(req.headers.authorization, key, !!options.basicRealm);
    } catch (err) {
      const e = err as AppException;
      const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
      if (e.status === 401 && options.basicRealm)
        headers['www-authenticate'] = `Basic realm="${options.basicRealm}", charset="UTF-8"`;
      res.writeHead(e.status, headers).end(JSON.stringify(generalBody(e)));
      return;
    }
    next();
  };
}
