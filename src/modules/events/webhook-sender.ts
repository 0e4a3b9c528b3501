import { Inject, Injectable, Logger } from '@nestjs/common';
import { sendSignedWebhook } from '@/common/net/signed-webhook';
import { SecretBox } from '@/common/crypto/secret-box';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { AGENT_WEBHOOK_TARGETS, AgentWebhookTargets } from './agent-webhook-targets.port';
import type { DeliveryRow } from './deliveries.repository';
import { DeliveryOutcomes } from './delivery-outcomes';
import { OutboxRepository } from './outbox.repository';
import { parseRetryAfter } from './retry-policy';
import { SendableSubscription, WebhooksService } from './webhooks.service';

/** Deadline of one attempt, connect to last byte. */
export const DELIVERY_TIMEOUT_MS = 10_000;
const EXCERPT_CHARS = 1000;

/**
 * One attempt of one delivery: the event signed with the subscription's live secrets, POSTed through the address
 * guard, and its outcome recorded; a 410 turns the subscription (workspace or agent webhook) off.
 */
@Injectable()
export class WebhookSender {
  private readonly logger = new Logger('DeliveryService');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly outbox: OutboxRepository,
    private readonly webhooks: WebhooksService,
    @Inject(AGENT_WEBHOOK_TARGETS) private readonly agentWebhooks: AgentWebhookTargets,
    private readonly outcomes: DeliveryOutcomes,
    private readonly secrets: SecretBox,
  ) {}

  async send(d: DeliveryRow): Promise<void> {
    const event = await this.outbox.toSend(d.workspace_id, d.event_id);
    const sub: SendableSubscription | null =
      d.webhook_kind === 'request'
        ? { id: d.webhook_id, url: d.url!, events: [], isActive: true, secrets: [] }
        : d.webhook_kind === 'workspace'
          ? await this.webhooks.sendable(d.workspace_id, d.webhook_id)
          : await this.agentWebhooks.deliverableWebhook(d.workspace_id, d.webhook_id);
    const attemptNo = d.attempt_count + 1;
    if (!event || !sub || !sub.isActive) {
      const why = !event
        ? 'the event no longer exists'
        : !sub
          ? 'the webhook was deleted'
          : 'the webhook is inactive';
      const r = { ok: false, status: null, durationMs: 0, excerpt: null, error: why };
      await this.outcomes.record(d, attemptNo, r, null, sub?.url, true);
      return;
    }
    const body = JSON.stringify({
      type: event.type,
      timestamp: new Date(event.created_at).toISOString(),
      workspace: { uuid: d.workspace_id, slug: event.slug },
      data: event.data,
    });
    const sent = await sendSignedWebhook(
      {
        url: sub.url,
        body,
        id: event.id,
        secrets: sub.secrets,
        userAgent: 'agent-platform-webhooks/1.0',
        headers: d.auth_ciphertext
          ? { authorization: `Bearer ${this.secrets.decrypt(d.auth_ciphertext)}` }
          : {},
        timeoutMs: DELIVERY_TIMEOUT_MS,
        maxBytes: 4096,
        // A subscriber's endpoint gets every event: kept-alive connections save a TCP and TLS handshake per delivery.
        keepAlive: true,
      },
      { allowPrivate: this.config.network.allowPrivateTargets },
    );
    const { response: res, durationMs } = sent;
    let error = sent.error;
    const status = res?.status ?? null;
    const ok = status !== null && status >= 200 && status < 300;
    if (res && !ok)
      error =
        status! >= 300 && status! < 400
          ? `HTTP ${status}: redirect${res.location ? ` to ${res.location}` : ''} not followed`
          : `HTTP ${status}`;
    const retryAfterMs =
      status === 429 || status === 503 ? parseRetryAfter(res?.headers['retry-after']) : null;
    const excerpt = res ? res.body.toString('utf8').slice(0, EXCERPT_CHARS) : null;
    // 410 Gone ends the delivery and turns the subscription off.
    await this.outcomes.record(
      d,
      attemptNo,
      { ok, status, durationMs, excerpt, error },
      retryAfterMs,
      sub.url,
      status === 410,
    );
    if (status === 410 && d.webhook_kind !== 'request') {
      if (d.webhook_kind === 'workspace') await this.webhooks.disable(d.workspace_id, d.webhook_id);
      else await this.agentWebhooks.disableWebhook(d.workspace_id, d.webhook_id);
      this.logger.warn(
        { workspaceId: d.workspace_id, webhookId: d.webhook_id },
        'webhook disabled: receiver answered 410',
      );
    }
  }
}
