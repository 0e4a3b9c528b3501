import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { graphMedia, graphRequest } from './meta-graph';
import {
  MessagingAdapter,
  MessagingProviderError,
  OutboundMessage,
  ProviderTemplate,
  TemplatePayload,
  TemplateProvider,
} from './messaging.port';

interface GraphTemplate {
  id?: string;
  name: string;
  language: string;
  category?: string;
  status?: string;
  components?: unknown[];
  rejected_reason?: string | null;
}

/**
 * Meta: WhatsApp Cloud API messages (`POST /{phone_number_id}/messages`), the Messenger and Instagram Send API
 * (`POST /{page_id}/messages`) and WhatsApp templates (`/{waba_id}/message_templates`), at META_GRAPH_URL.
 */
@Injectable()
export class MetaMessaging implements MessagingAdapter, TemplateProvider {
  readonly provider = 'meta';
  readonly simulated = false;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get configured(): boolean {
    return !!this.config.meta.accessToken;
  }

  /** An inbound message's media file (a voice note), through the Graph API's media URL. */
  downloadMedia(mediaId: string): Promise<{ bytes: Buffer; mimeType: string }> {
    return graphMedia(this.config.meta.graphUrl, this.config.meta.accessToken, mediaId);
  }

  private call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
    return graphRequest<T>(this.config.meta.graphUrl, this.config.meta.accessToken, method, path, body);
  }

  async send(message: OutboundMessage): Promise<{ providerMessageId: string }> {
    if (message.channel === 'messenger' || message.channel === 'instagram') {
      const sent = await this.call<{ message_id?: string }>('POST', `${message.from}/messages`, {
        recipient: { id: message.to },
        messaging_type: 'RESPONSE',
        message: { text: message.text ?? '' },
      });
      return { providerMessageId: this.idOf(sent.message_id) };
    }
    const body = message.template
      ? { type: 'template', template: templateBody(message.template) }
      : { type: 'text', text: { preview_url: false, body: message.text ?? '' } };
    const sent = await this.call<{ messages?: { id?: string }[] }>('POST', `${message.from}/messages`, {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: message.to.replace(/^\+/, ''),
      ...body,
    });
    return { providerMessageId: this.idOf(sent.messages?.[0]?.id) };
  }

  private idOf(id: string | undefined): string {
    if (!id) throw new MessagingProviderError('INVALID_RESPONSE', 'Meta answered without a message id');
    return id;
  }

  async create(
    wabaId: string,
    template: { name: string; language: string; category: string; components: unknown[] },
  ): Promise<{ id: string | null; status: string }> {
    const created = await this.call<{ id?: string; status?: string }>(
      'POST',
      `${encodeURIComponent(wabaId)}/message_templates`,
      template,
    );
    return { id: created.id ?? null, status: created.status ?? 'PENDING' };
  }

  async list(wabaId: string): Promise<ProviderTemplate[]> {
    const out: ProviderTemplate[] = [];
    let next: string | undefined = `${encodeURIComponent(wabaId)}/message_templates?limit=100`;
    for (let page = 0; next && page < 100; page++) {
      const res: { data?: GraphTemplate[]; paging?: { next?: string } } = await this.call('GET', next);
      for (const t of res.data ?? [])
        out.push({
          id: t.id ?? null,
          name: t.name,
          language: t.language,
          category: t.category ?? 'UTILITY',
          status: t.status ?? 'PENDING',
          components: t.components ?? [],
          rejectedReason: t.rejected_reason && t.rejected_reason !== 'NONE' ? t.rejected_reason : null,
        });
      next = res.paging?.next;
    }
    return out;
  }

  async remove(wabaId: string, name: string): Promise<void> {
    await this.call(
      'DELETE',
      `${encodeURIComponent(wabaId)}/message_templates?name=${encodeURIComponent(name)}`,
    );
  }
}

function templateBody(t: TemplatePayload): Record<string, unknown> {
  const components: Record<string, unknown>[] = [];
  if (t.header)
    components.push({
      type: 'header',
      parameters: [{ type: t.header.type, [t.header.type]: { link: t.header.url } }],
    });
  if (t.parameters.length)
    components.push({ type: 'body', parameters: t.parameters.map((text) => ({ type: 'text', text })) });
  return { name: t.name, language: { code: t.language }, ...(components.length ? { components } : {}) };
}
