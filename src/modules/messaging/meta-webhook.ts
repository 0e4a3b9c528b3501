import type { JobOptions } from 'bull';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { DeliveryStatus, ProviderFailure } from '@/providers/messaging/messaging.port';
import type { InboundItem } from './inbound-queue';

/** `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>` keyed with the app secret. */
export function isValidMetaSignature(
  secret: string | undefined,
  raw: Buffer | undefined,
  header: unknown,
): boolean {
  if (!secret || !raw || typeof header !== 'string' || !header.startsWith('sha256=')) return false;
  const given = Buffer.from(header.slice(7), 'hex');
  const expected = createHmac('sha256', secret).update(raw).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * A status is found by its wamid, which Meta may report before the send stored it: its job is tried again after
 * 0.5, 1, 2, 4, 8, 16 and 32 s (about a minute) before it is dropped.
 */
export const META_STATUS_RETRY: JobOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 500 },
};

export interface MetaStatus {
  providerMessageId: string;
  status: DeliveryStatus;
  error: ProviderFailure | null;
}

export interface MetaTemplateUpdate {
  providerTemplateId: string;
  status: string;
  reason: string | null;
}

export interface MetaNotification {
  messages: InboundItem[];
  statuses: MetaStatus[];
  templates: MetaTemplateUpdate[];
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | null =>
  typeof v === 'string' && v ? v : typeof v === 'number' ? String(v) : null;
const STATUSES = new Set(['sent', 'delivered', 'read', 'failed']);
const MEDIA = new Set(['image', 'video', 'document', 'sticker']);

/** The text a WhatsApp message carries: text, button and list replies as text; media as type with its caption. */
function whatsappContent(m: Json): { text: string; messageType: string; audioId?: string } | null {
  const type = str(m.type) ?? 'text';
  if (type === 'text') return { text: str(obj(m.text).body) ?? '', messageType: 'text' };
  if (type === 'button') return { text: str(obj(m.button).text) ?? '', messageType: 'text' };
  if (type === 'interactive') {
    const i = obj(m.interactive);
    const reply = obj(i.button_reply ?? i.list_reply);
    return { text: str(reply.title) ?? '', messageType: 'text' };
  }
  if (type === 'audio' || type === 'voice')
    return { text: '[audio]', messageType: 'audio', audioId: str(obj(m[type]).id) ?? undefined };
  if (MEDIA.has(type)) return { text: str(obj(m[type]).caption) ?? `[${type}]`, messageType: type };
  return null;
}

/** Reads one webhook notification: WhatsApp messages, statuses and template reviews; Messenger and Instagram. */
export function parseMetaNotification(body: unknown, receivedAt: number): MetaNotification {
  const out: MetaNotification = { messages: [], statuses: [], templates: [] };
  const root = obj(body);
  const object = str(root.object);
  for (const entry of arr(root.entry).map(obj)) {
    if (object === 'page' || object === 'instagram') {
      const channel = object === 'page' ? 'messenger' : 'instagram';
      for (const ev of arr(entry.messaging).map(obj)) {
        const message = obj(ev.message);
        const mid = str(message.mid);
        const from = str(obj(ev.sender).id);
        const page = str(obj(ev.recipient).id) ?? str(entry.id);
        if (!mid || !from || !page || message.is_echo) continue;
        out.messages.push({
          channel,
          provider: 'meta',
          to: page,
          from,
          text: str(message.text) ?? '[attachment]',
          messageType: str(message.text) ? 'text' : 'attachment',
          providerMessageId: mid,
          receivedAt,
        });
      }
      continue;
    }
    for (const change of arr(entry.changes).map(obj)) {
      const value = obj(change.value);
      if (change.field === 'message_template_status_update') {
        const id = str(value.message_template_id);
        const status = str(value.event);
        if (id && status)
          out.templates.push({
            providerTemplateId: id,
            status,
            reason: str(value.reason) === 'NONE' ? null : str(value.reason),
          });
        continue;
      }
      if (change.field !== 'messages') continue;
      const to = str(obj(value.metadata).phone_number_id);
      for (const m of arr(value.messages).map(obj)) {
        const id = str(m.id);
        const from = str(m.from);
        const content = whatsappContent(m);
        if (!to || !id || !from || !content) continue;
        out.messages.push({
          channel: 'whatsapp',
          provider: 'meta',
          to,
          from: from.startsWith('+') ? from : `+${from}`,
          providerMessageId: id,
          receivedAt,
          ...content,
        });
      }
      for (const s of arr(value.statuses).map(obj)) {
        const id = str(s.id);
        const status = str(s.status);
        if (!id || !status || !STATUSES.has(status)) continue;
        const e = obj(arr(s.errors)[0]);
        out.statuses.push({
          providerMessageId: id,
          status: status as DeliveryStatus,
          error:
            status === 'failed'
              ? {
                  code: str(e.code) ?? 'UNKNOWN',
                  message: str(e.title) ?? str(e.message) ?? 'Meta failed the message',
                }
              : null,
        });
      }
    }
  }
  return out;
}
