import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SecretBoxModule } from '@/common/crypto/secret-box';
import { AgentWebhooksSection } from '@/modules/agents/agent-view.sections';
import { AgentWriteLockModule } from '@/modules/agents/collections/agent-write-lock.module';
import { AgentWebhook } from './agent-webhooks/agent-webhook.entity';
import { AgentWebhookSecretsController } from './agent-webhooks/agent-webhooks.controller';
import { AgentWebhooksHandler } from './agent-webhooks/agent-webhooks.handler';
import { AgentWebhooksRepository } from './agent-webhooks/agent-webhooks.repository';
import { AgentWebhooksView } from './agent-webhooks/agent-webhooks.section';
import { AgentWebhooksService } from './agent-webhooks/agent-webhooks.service';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveryThrottle } from './delivery-throttle';
import { DeliveryOutcomes } from './delivery-outcomes';
import { DeliveryQueue } from './delivery-queue';
import { DeliveryService } from './delivery.service';
import { OutboxEvent } from './outbox-event.entity';
import { OutboxConsumers } from './outbox-consumers';
import { OutboxRepository } from './outbox.repository';
import { OutboxService } from './outbox.service';
import { RetryPolicy } from './retry-policy';
import { WebhookDelivery, WebhookDeliveryAttempt } from './webhook-delivery.entity';
import { Webhook } from './webhook.entity';
import { WebhookSender } from './webhook-sender';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([OutboxEvent, Webhook, WebhookDelivery, WebhookDeliveryAttempt, AgentWebhook]),
    SecretBoxModule,
    AgentWriteLockModule,
  ],
  controllers: [WebhooksController, AgentWebhookSecretsController],
  providers: [
    OutboxService,
    OutboxConsumers,
    OutboxRepository,
    WebhooksRepository,
    DeliveriesRepository,
    WebhooksService,
    DeliveryService,
    DeliveryQueue,
    DeliveryOutcomes,
    WebhookSender,
    DeliveryThrottle,
    RetryPolicy,
    AgentWebhooksRepository,
    AgentWebhooksService,
    AgentWebhooksHandler,
    { provide: AgentWebhooksSection, useClass: AgentWebhooksView },
  ],
  exports: [
    OutboxService,
    OutboxConsumers,
    DeliveryService,
    RetryPolicy,
    AgentWebhooksService,
    AgentWebhooksHandler,
    AgentWebhooksSection,
  ],
})
export class EventsModule {}
