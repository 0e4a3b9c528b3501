import { validateRequest } from 'twilio/lib/webhooks/webhooks';

/**
 * Twilio's `X-Twilio-Signature` check: HMAC-SHA1 of the URL Twilio called (as configured, never the Host header)
 * followed by the POST parameters sorted by name, keyed with the account's auth token.
 */
export function isValidTwilioSignature(
  authToken: string,
  url: string,
  params: Record<string, string>,
  signature: string | undefined,
): boolean {
  if (!signature || !authToken) return false;
  return validateRequest(authToken, signature, url, params);
}
