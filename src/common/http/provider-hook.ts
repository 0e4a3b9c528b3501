import express, { NextFunction, Request, Response } from 'express';
import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Public } from '@/common/auth/public.decorator';

export const HOOKS_PREFIX = '/hooks/';
/** Flow webhook triggers take ordinary JSON from outside systems, authenticated by their secret URL. */
const FLOW_HOOKS_PREFIX = '/hooks/v1/flows/';
export const PROVIDER_HOOK = 'cap:provider-hook';
export const PROVIDER_HOOKS_TAG = 'Provider hooks';

/**
 * A route providers call (Twilio, Meta): no tenant token and no rate limit (the provider's signature authenticates
 * it), any content type (form posts, raw JSON whose bytes are signed).
 */
export const ProviderHook = (): MethodDecorator & ClassDecorator =>
  applyDecorators(Public(), SetMetadata(PROVIDER_HOOK, true), ApiTags(PROVIDER_HOOKS_TAG));

/** A hook request: `rawBody` holds the bytes as received (signatures are computed over them). */
export type HookRequest = Request & { rawBody?: Buffer };

const LIMIT = '1mb';
const raw = express.raw({ type: () => true, limit: LIMIT });

/**
 * Body parsing of `/hooks/*`, mounted before the JSON parser: the raw bytes are kept (Meta signs them), form posts
 * (Twilio) are decoded into `body`, JSON is parsed by the route after its signature check. A body that cannot be
 * read leaves `rawBody` unset, which no signature matches.
 */
export function hookBodyParser(req: Request, res: Response, next: NextFunction): void {
  if (!req.path.startsWith(HOOKS_PREFIX) || req.path.startsWith(FLOW_HOOKS_PREFIX) || req.method !== 'POST')
    return next();
  raw(req, res, (err?: unknown) => {
    const hook = req as HookRequest;
    if (!err && Buffer.isBuffer(req.body)) {
      hook.rawBody = req.body;
      const type = String(req.headers['content-type'] ?? '').toLowerCase();
      req.body = type.startsWith('application/x-www-form-urlencoded')
        ? Object.fromEntries(new URLSearchParams(hook.rawBody.toString('utf8')))
        : {};
    } else req.body = {};
    next();
  });
}
