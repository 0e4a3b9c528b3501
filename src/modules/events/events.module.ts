import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SecretBoxModule } from '@/common/crypto/secret-box';
import { AgentsModule } from '@/modules/agents/agents.module';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveryThrottle } from './delivery-throttle';
import { DeliveryService } from './delivery.service';
import { OutboxEvent } from './outbox-event.entity';
import { OutboxConsumers } from './outbox-consumers';
import { OutboxRepository } from './outbox.repository';
import { OutboxService } from './outbox.service';
import { RetryPolicy } from './retry-policy';
import { WebhookDelivery, WebhookDeliveryAttempt } from './webhook-delivery.entity';
import { Webhook } from './webhook.entity';
import { AgentWebhookSecretsController, WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([OutboxEvent, Webhook, WebhookDelivery, WebhookDeliveryAttempt]),
    SecretBoxModule,
    AgentsModule,
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
    DeliveryThrottle,
    RetryPolicy,
  ],
  exports: [OutboxService, OutboxConsumers, DeliveryService, RetryPolicy],
})
export class EventsModule {}
