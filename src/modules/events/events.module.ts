import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SecretBoxModule } from '@/common/crypto/secret-box';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveryThrottle } from './delivery-throttle';
import { DeliveryOutcomes } from './delivery-outcomes';
import { DeliveryQueue } from './delivery-queue';
import { DeliveryService } from './delivery.service';
import { OutboxEvent } from './outbox-event.entity';
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
    TypeOrmModule.forFeature([OutboxEvent, Webhook, WebhookDelivery, WebhookDeliveryAttempt]),
    SecretBoxModule,
  ],
  controllers: [WebhooksController],
  providers: [
    OutboxService,
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
  ],
  exports: [OutboxService, DeliveryService, RetryPolicy],
})
export class EventsModule {}
