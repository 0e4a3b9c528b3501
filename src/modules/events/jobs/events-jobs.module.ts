import { Module } from '@nestjs/common';
import { EventsModule } from '../events.module';
import { DeliverWebhookProcessor } from './deliver-webhook.processor';
import { OutboxListener } from './outbox-listener';

/** Webhook delivery, loaded only where workers run: the outbox listener, the sweep and the delivery processor. */
@Module({ imports: [EventsModule], providers: [DeliverWebhookProcessor, OutboxListener] })
export class EventsJobsModule {}
