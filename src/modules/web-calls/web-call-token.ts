import { createHash, randomBytes } from 'node:crypto';

/** How long a web call's client token opens its call: the call rings that long, then ends `no-answer`. */
export const WEB_TOKEN_TTL_SECONDS = 600;
const PREFIX = 'wct_';

/** `wct_` and 32 random bytes (base64url): recognisable in a leak, never guessable. */
export function newWebCallToken(): string {
  return PREFIX + randomBytes(32).toString('base64url');
}

/** Whether a value has the shape of a client token (a refusal needs no database read otherwise). */
export function isWebCallTokenShape(value: string): boolean {
  return /^wct_[A-Za-z0-9_-]{43}$/.test(value);
}

export function hashWebCallToken(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Why a token does not open a call. */
export type TokenRefusal = 'invalid' | 'expired' | 'used';
