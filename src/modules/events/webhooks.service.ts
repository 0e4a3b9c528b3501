import { Injectable } from '@nestjs/common';
import { SecretBox } from '@/common/crypto/secret-box';
import { AppException } from '@/common/errors/app.exception';
import { Page, PageQuery, pageOf, skipTake } from '@/common/http/pagination';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { DeliveriesRepository } from './deliveries.repository';
import { UpdateWebhookDto, WebhookDto } from './dto/webhook-body.dto';
import {
  DeliveryAttemptResponse,
  DeliveryResponse,
  ListDeliveriesQuery,
  RotatedSecretResponse,
  WebhookResponse,
} from './dto/webhook.dto';
import { generateSecret, ROTATION_OVERLAP_MS } from './signing';
import { WebhookDelivery, WebhookDeliveryAttempt } from './webhook-delivery.entity';
import type { WebhookEvent } from './webhook-events';
import { Webhook } from './webhook.entity';
import { WebhooksRepository } from './webhooks.repository';

/** Workspace webhooks a workspace may hold. */
export const MAX_WORKSPACE_WEBHOOKS = 20;

/** A subscription as the sender needs it: live secrets in clear, current first. Never log them. */
export interface SendableSubscription {
  id: string;
  url: string;
  events: WebhookEvent[];
  isActive: boolean;
  secrets: string[];
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** Workspace webhooks (CRUD, rotation) and the delivery log. */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly secrets: SecretBox,
  ) {}

  async list(workspaceId: WorkspaceId, query: PageQuery): Promise<Page<WebhookResponse>> {
    const [rows, total] = await this.webhooks.findAndCount(workspaceId, {
      order: { createdAt: 'ASC', id: 'ASC' },
      ...skipTake(query),
    });
    return pageOf(rows.map(toResponse), total, query);
  }

  async get(workspaceId: WorkspaceId, id: string): Promise<WebhookResponse> {
    return toResponse(await this.load(workspaceId, id));
  }

  async create(workspaceId: WorkspaceId, dto: WebhookDto): Promise<WebhookResponse> {
    if ((await this.webhooks.count(workspaceId)) >= MAX_WORKSPACE_WEBHOOKS)
      throw new AppException(
        'WEBHOOK_LIMIT_REACHED',
        `A workspace has at most ${MAX_WORKSPACE_WEBHOOKS} workspace webhooks`,
      );
    const row = this.webhooks.build(workspaceId, {
      url: dto.url,
      events: dto.events,
      isActive: dto.is_active ?? true,
      secretCiphertext: dto.secret_key ? this.secrets.encrypt(dto.secret_key) : null,
      previousSecretCiphertext: null,
      previousSecretExpiresAt: null,
    });
    return toResponse(await this.webhooks.save(workspaceId, row));
  }

  async update(workspaceId: WorkspaceId, id: string, dto: UpdateWebhookDto): Promise<WebhookResponse> {
    for (const key of ['url', 'events', 'is_active'] as const)
      if (dto[key] === null)
        throw AppException.invalid(key, `${key} should not be empty`, 'VALIDATION_ERROR');
    const row = await this.load(workspaceId, id);
    if (dto.url !== undefined) row.url = dto.url;
    if (dto.events !== undefined) row.events = dto.events;
    if (dto.is_active !== undefined) row.isActive = dto.is_active;
    if (dto.secret_key !== undefined) {
      row.secretCiphertext = dto.secret_key ? this.secrets.encrypt(dto.secret_key) : null;
      // Setting the secret directly replaces it at once; only a rotation keeps the old one signing.
      row.previousSecretCiphertext = null;
      row.previousSecretExpiresAt = null;
    }
    row.updatedAt = new Date();
    return toResponse(await this.webhooks.save(workspaceId, row));
  }

  async remove(workspaceId: WorkspaceId, id: string): Promise<void> {
    if (!(await this.webhooks.delete(workspaceId, { id }))) throw AppException.notFound('Webhook');
  }

  async rotate(workspaceId: WorkspaceId, id: string, newSecret?: string): Promise<RotatedSecretResponse> {
    const row = await this.load(workspaceId, id);
    const secret = newSecret ?? generateSecret();
    const expires = row.secretCiphertext ? new Date(Date.now() + ROTATION_OVERLAP_MS) : null;
    row.previousSecretCiphertext = row.secretCiphertext;
    row.previousSecretExpiresAt = expires;
    row.secretCiphertext = this.secrets.encrypt(secret);
    row.updatedAt = new Date();
    await this.webhooks.save(workspaceId, row);
    return { webhook_uuid: row.id, secret_key: secret, previous_secret_expires_at: iso(expires) };
  }

  /** Active workspace webhooks subscribed to an event type (ids and urls only). */
  subscribed(workspaceId: WorkspaceId, type: string): Promise<Webhook[]> {
    return this.webhooks.subscribed(workspaceId, type);
  }

  async sendable(workspaceId: WorkspaceId, id: string): Promise<SendableSubscription | null> {
    const w = await this.webhooks.findById(workspaceId, id);
    if (!w) return null;
    const secrets: string[] = [];
    if (w.secretCiphertext) secrets.push(this.secrets.decrypt(w.secretCiphertext));
    if (w.previousSecretCiphertext && w.previousSecretExpiresAt && w.previousSecretExpiresAt > new Date())
      secrets.push(this.secrets.decrypt(w.previousSecretCiphertext));
    return { id: w.id, url: w.url, events: w.events, isActive: w.isActive, secrets };
  }

  disable(workspaceId: WorkspaceId, id: string): Promise<void> {
    return this.webhooks.disable(workspaceId, id);
  }

  async listDeliveries(
    workspaceId: WorkspaceId,
    query: ListDeliveriesQuery,
  ): Promise<Page<DeliveryResponse>> {
    const [rows, total] = await this.deliveries.list(workspaceId, {
      webhookId: query.webhook_uuid,
      status: query.status,
      type: query.type,
      from: query.from ? new Date(query.from) : undefined,
      to: query.to ? new Date(query.to) : undefined,
      ...skipTake(query),
    });
    return pageOf(await this.withAttempts(workspaceId, rows), total, query);
  }

  async redeliver(workspaceId: WorkspaceId, id: string): Promise<DeliveryResponse> {
    const existing = await this.deliveries.findById(workspaceId, id);
    if (!existing) throw AppException.notFound('Delivery');
    const row = await this.deliveries.requeue(workspaceId, id);
    if (!row) throw AppException.conflict('The delivery is still pending');
    return (await this.withAttempts(workspaceId, [row]))[0];
  }

  private async load(workspaceId: WorkspaceId, id: string): Promise<Webhook> {
    const row = await this.webhooks.findById(workspaceId, id);
    if (!row) throw AppException.notFound('Webhook');
    return row;
  }

  private async withAttempts(workspaceId: WorkspaceId, rows: WebhookDelivery[]): Promise<DeliveryResponse[]> {
    const attempts = await this.deliveries.attemptsOf(
      workspaceId,
      rows.map((r) => r.id),
    );
    const byDelivery = new Map<string, WebhookDeliveryAttempt[]>();
    for (const a of attempts) byDelivery.set(a.deliveryId, [...(byDelivery.get(a.deliveryId) ?? []), a]);
    return rows.map((d) => ({
      uuid: d.id,
      event_uuid: d.eventId,
      type: d.eventType,
      webhook_uuid: d.webhookId,
      webhook_kind: d.webhookKind,
      url: d.url,
      status: d.status,
      attempt_count: d.attemptCount,
      next_attempt_at: d.status === 'pending' ? iso(d.nextAttemptAt) : null,
      last_status_code: d.lastStatusCode,
      last_error: d.lastError,
      delivered_at: iso(d.deliveredAt),
      attempts: (byDelivery.get(d.id) ?? []).map(toAttempt),
      created_at: d.createdAt.toISOString(),
      updated_at: d.updatedAt.toISOString(),
    }));
  }
}

function toAttempt(a: WebhookDeliveryAttempt): DeliveryAttemptResponse {
  return {
    attempt: a.attempt,
    succeeded: a.succeeded,
    status_code: a.statusCode,
    duration_ms: a.durationMs,
    response_excerpt: a.responseExcerpt,
    error: a.error,
    next_retry_at: iso(a.nextRetryAt),
    created_at: a.createdAt.toISOString(),
  };
}

function toResponse(w: Webhook): WebhookResponse {
  const rotating = w.previousSecretExpiresAt && w.previousSecretExpiresAt > new Date();
  return {
    uuid: w.id,
    webhook_uuid: w.id,
    url: w.url,
    events: w.events,
    is_active: w.isActive,
    has_secret: !!w.secretCiphertext,
    previous_secret_expires_at: rotating ? iso(w.previousSecretExpiresAt) : null,
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
  };
}
