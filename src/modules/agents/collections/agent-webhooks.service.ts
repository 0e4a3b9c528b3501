import { Injectable } from '@nestjs/common';
import { SecretBox } from '@/common/crypto/secret-box';
import { AppException } from '@/common/errors/app.exception';
import type {
  AgentWebhookTargets,
  DeliverableWebhook,
  SendableWebhook,
} from '@/modules/events/agent-webhook-targets.port';
import type { RotatedSecretResponse } from '@/modules/events/dto/webhook.dto';
import { generateSecret, ROTATION_OVERLAP_MS } from '@/modules/events/signing';
import type { WebhookEvent } from '@/modules/events/webhook-events';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { AgentWebhooksRepository } from './agent-webhooks.repository';
import { AgentWriteLock } from './agent-write-lock';

/**
 * Agent webhooks as delivery sees them (the events module's AGENT_WEBHOOK_TARGETS port) and the rotation of their
 * secrets: the only place a webhook secret leaves its sealed form.
 */
@Injectable()
export class AgentWebhooksService implements AgentWebhookTargets {
  constructor(
    private readonly lock: AgentWriteLock,
    private readonly webhooks: AgentWebhooksRepository,
    private readonly secrets: SecretBox,
  ) {}

  /** The agent's active webhooks subscribed to an event, with their secrets opened, for delivery. */
  async activeWebhooks(
    workspaceId: WorkspaceId,
    agentId: string,
    event: WebhookEvent,
  ): Promise<DeliverableWebhook[]> {
    const rows = await this.webhooks.listFor(workspaceId, agentId, {});
    return rows
      .filter((w) => w.isActive && w.events.includes(event))
      .map((w) => ({
        id: w.id,
        url: w.url,
        events: w.events,
        secret: w.secretCiphertext ? this.secrets.decrypt(w.secretCiphertext) : null,
      }));
  }

  /** One agent webhook by its id, with its live secrets opened (current first), for sending; null when gone. */
  async deliverableWebhook(workspaceId: WorkspaceId, webhookId: string): Promise<SendableWebhook | null> {
    const w = await this.webhooks.findOne(workspaceId, { id: webhookId });
    if (!w) return null;
    const secrets: string[] = [];
    if (w.secretCiphertext) secrets.push(this.secrets.decrypt(w.secretCiphertext));
    if (w.previousSecretCiphertext && w.previousSecretExpiresAt && w.previousSecretExpiresAt > new Date())
      secrets.push(this.secrets.decrypt(w.previousSecretCiphertext));
    return { id: w.id, agentId: w.agentId, url: w.url, events: w.events, isActive: w.isActive, secrets };
  }

  /** Turns a webhook off (its receiver answered 410 Gone). */
  async disableWebhook(workspaceId: WorkspaceId, webhookId: string): Promise<void> {
    await this.webhooks.disable(workspaceId, webhookId);
  }

  /**
   * Replaces the signing secret (the one given, or a generated one shown in this answer only) under the agent's
   * row lock; the old one keeps signing beside it for ROTATION_OVERLAP_MS.
   */
  async rotate(
    workspaceId: WorkspaceId,
    agentId: string,
    webhookId: string,
    newSecret?: string,
  ): Promise<RotatedSecretResponse> {
    const secret = newSecret ?? generateSecret();
    const expires = await this.lock.write(workspaceId, agentId, async (tx) => {
      const stored = await this.webhooks.listFor(workspaceId, agentId, {}, tx);
      const row = stored.find((r) => r.id === webhookId);
      if (!row) throw AppException.notFound('Webhook');
      const previousExpiresAt = row.secretCiphertext ? new Date(Date.now() + ROTATION_OVERLAP_MS) : null;
      row.previousSecretCiphertext = row.secretCiphertext;
      row.previousSecretExpiresAt = previousExpiresAt;
      row.secretCiphertext = this.secrets.encrypt(secret);
      row.updatedAt = new Date();
      await this.webhooks.save(workspaceId, row, tx);
      return previousExpiresAt;
    });
    return {
      webhook_uuid: webhookId,
      secret_key: secret,
      previous_secret_expires_at: expires ? expires.toISOString() : null,
    };
  }
}
