import { validateRequest } from 'twilio';

/**
 * Twilio's `X-Twilio-Signature`: base64 HMAC-SHA1, keyed with the auth token, of the full URL followed by every
 * POST parameter sorted by name (name then value, no separators). Missing signature: false.
 */
export function isValidTwilioSignature(
  authToken: string,
  url: string,
  params: Record<string, string>,
  signature: string | undefined,
): boolean {
  if (!signature) return false;
  return validateRequest(authToken, signature, url, params);
}
