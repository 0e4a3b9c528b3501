import { randomBytes } from 'node:crypto';

/** How long the secret replaced by a rotation keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;

/** A fresh secret in the Standard Webhooks form (24 random bytes); `sendSignedWebhook` signs with it. */
export function generateSecret(): string {
  return 'whsec_' + randomBytes(24).toString('base64');
}
