import { createHmac } from 'node:crypto';
import type { GuardPolicy, SafeResponse } from './address-guard';
import { outboundCategory, outboundRequest } from './outbound-http';
import { tracingEnabled, withSpan } from '@/common/telemetry/telemetry';

/**
 * The one way a tenant's endpoint is called with a signed JSON body (event webhooks, intent webhooks, a flow's
 * send_webhook): Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`), sent through
 * the outbound client (address guard on every connection, deadline, byte cap, no redirect followed), a failure
 * answered as the tenant-facing category of `outboundCategory`.
 */

const SECRET_PREFIX = 'whsec_';

/**
 * The HMAC key of a secret. A `whsec_`-prefixed secret is the Standard Webhooks form: the key is the base64 after
 * the prefix, decoded. Any other secret is used as its UTF-8 bytes (receivers verify it in "raw" mode).
 */
export function signingKey(secret: string): Buffer {
  if (secret.startsWith(SECRET_PREFIX)) {
    const b64 = secret.slice(SECRET_PREFIX.length);
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

export interface SignedWebhook {
  url: string;
  /** The JSON text sent, and signed, as is. */
  body: string;
  /** `webhook-id`: the message's id, the same on every attempt of it. */
  id: string;
  /** Each live secret adds one `v1,` signature; none sends the body unsigned. */
  secrets: string[];
  /** Names the feature that sends (`agent-platform-webhooks/1.0`). */
  userAgent: string;
  /** Sent after the defaults (so they may replace them) and before the webhook headers (which they may not). */
  headers?: Record<string, string>;
  /** POST unless given. */
  method?: string;
  timeoutMs: number;
  /** The answer's body is cut off past this many bytes. */
  maxBytes: number;
  /** Kept-alive connections, for endpoints called again and again (each opened through the guard's check). */
  keepAlive?: boolean;
}

/** The endpoint's answer (any status; a 3xx is not followed), or why there was none. */
export type WebhookAnswer = { durationMs: number } & (
  { response: SafeResponse; error: null } | { response: null; error: string }
);

/**
 * Sends the webhook once; never throws for the endpoint's failure (`error` is its category). Traced as a `webhook`
 * span: the sender, the message id, the endpoint's host, its status or failure category (never the body).
 */
export function sendSignedWebhook(hook: SignedWebhook, policy: GuardPolicy): Promise<WebhookAnswer> {
  if (!tracingEnabled()) return send(hook, policy);
  const attributes = {
    'webhook.sender': hook.userAgent,
    'webhook.message_id': hook.id,
    'server.address': hostOf(hook.url),
    'http.request.method': hook.method ?? 'POST',
  };
  return withSpan('webhook', attributes, async (span) => {
    const answer = await send(hook, policy);
    const status = answer.response?.status;
    span.setAttributes({ 'http.response.status_code': status, 'webhook.failure': answer.error });
    if (answer.error || (status ?? 0) >= 400)
      span.fail({ name: 'WebhookFailed', message: answer.error ?? `HTTP ${status}` });
    return answer;
  });
}

const hostOf = (url: string): string | undefined => URL.parse(url)?.host;

async function send(hook: SignedWebhook, policy: GuardPolicy): Promise<WebhookAnswer> {
  const timestamp = Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    // Sized, not chunked: some receivers read a chunked body as empty.
    'content-length': String(Buffer.byteLength(hook.body)),
    'user-agent': hook.userAgent,
    ...hook.headers,
    'webhook-id': hook.id,
    'webhook-timestamp': String(timestamp),
  };
  if (hook.secrets.length)
    headers['webhook-signature'] = signatureHeader(hook.secrets, hook.id, timestamp, hook.body);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const response = await outboundRequest(hook.url, policy, {
      method: hook.method ?? 'POST',
      headers,
      body: hook.body,
      timeoutMs: hook.timeoutMs,
      maxBytes: hook.maxBytes,
      keepAlive: hook.keepAlive,
    });
    return { response, error: null, durationMs: elapsed() };
  } catch (err) {
    return { response: null, error: outboundCategory(err), durationMs: elapsed() };
  }
}

/** An answer's body as JSON when it parses, else as text; an empty body is null. */
export function answerBody(response: SafeResponse): unknown {
  const text = response.body.toString('utf8');
  if (!text.trim()) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
