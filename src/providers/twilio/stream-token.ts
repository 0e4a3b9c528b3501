import { createHmac, timingSafeEqual } from 'node:crypto';

/** The media stream's `token` parameter: an HMAC of the call UUID, keyed from ENCRYPTION_KEY. */
export function streamToken(encryptionKey: string, callId: string): string {
  const key = createHmac('sha256', encryptionKey).update('twilio-media-stream').digest();
  return createHmac('sha256', key).update(callId).digest('base64url');
}

export function isValidStreamToken(encryptionKey: string, callId: string, token: unknown): boolean {
  if (typeof token !== 'string') return false;
  const expected = Buffer.from(streamToken(encryptionKey, callId));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
