import { Injectable } from '@nestjs/common';
import { SecretBox } from '@/common/crypto/secret-box';
import { AppException } from '@/common/errors/app.exception';
import { ReplaceWebhooksDto, UpdateWebhookDto, WebhookDto } from '@/modules/events/dto/webhook-body.dto';
import { AgentWebhook, MAX_WEBHOOKS_PER_AGENT } from '../agent-webhook.entity';
import { AgentWebhooksRepository } from '../agent-webhooks.repository';
import type { CollectionHandler, CollectionRoute, WriteContext } from '../collection-handler';

export const AGENT_WEBHOOKS_ROUTE: CollectionRoute = {
  name: 'webhooks',
  path: 'webhooks',
  itemParam: 'itemUuid',
  method: 'Webhook',
  one: 'a webhook',
  all: 'all webhooks',
  item: 'one webhook',
  rule: `At most ${MAX_WEBHOOKS_PER_AGENT} per agent (409 WEBHOOK_LIMIT_REACHED); secret_key is stored encrypted and never returned.`,
  errors: ['WEBHOOK_LIMIT_REACHED'],
  body: { create: WebhookDto, replace: ReplaceWebhooksDto, update: UpdateWebhookDto },
};

@Injectable()
export class AgentWebhooksHandler implements CollectionHandler<AgentWebhook> {
  readonly label = 'Webhook';
  readonly route = AGENT_WEBHOOKS_ROUTE;
  readonly scope = {};
  readonly required = ['url', 'events', 'is_active'];
  readonly fields = { url: 'url', events: 'events', is_active: 'isActive' } as const;
  readonly defaults = {
    isActive: true,
    secretCiphertext: null,
    previousSecretCiphertext: null,
    previousSecretExpiresAt: null,
  };

  constructor(
    readonly repo: AgentWebhooksRepository,
    private readonly secrets: SecretBox,
  ) {}

  /** Setting the secret directly replaces it at once; only a rotation keeps the old one signing. */
  finish(_ctx: WriteContext, row: AgentWebhook, dto: Partial<WebhookDto>): void {
    if (dto.secret_key === undefined) return;
    row.secretCiphertext = dto.secret_key ? this.secrets.encrypt(dto.secret_key) : null;
    row.previousSecretCiphertext = null;
    row.previousSecretExpiresAt = null;
  }

  async check(_ctx: WriteContext, rows: AgentWebhook[]): Promise<void> {
    if (rows.length > MAX_WEBHOOKS_PER_AGENT)
      throw new AppException(
        'WEBHOOK_LIMIT_REACHED',
        `An agent has at most ${MAX_WEBHOOKS_PER_AGENT} webhooks`,
      );
  }
}
