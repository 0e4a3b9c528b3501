import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** How long the secret replaced by a rotation keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;

/**
 * The HMAC key of a secret. A `whsec_`-prefixed secret is the Standard Webhooks form: the key is the base64 after
 * the prefix, decoded. Any other secret is used as its UTF-8 bytes (receivers verify it in "raw" mode).
 */
export function signingKey(secret: string): Buffer {
  if (secret.startsWith(PREFIX)) {
    const b64 = secret.slice(PREFIX.length);
    if (/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return Buffer.from(b64, 'base64');
  }
  return Buffer.from(secret, 'utf8');
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', signingKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The `webhook-signature` value: one `v1,` signature per live secret, separated by a space (rotation). */
export function signatureHeader(secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets.map((s) => sign(s, id, timestamp, body)).join(' ');
}

/** A fresh secret in the Standard Webhooks form (24 random bytes). */
export function generateSecret(): string {
  return PREFIX + randomBytes(24).toString('base64');
}
