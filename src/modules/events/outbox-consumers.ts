import { Injectable } from '@nestjs/common';
import type { Transaction } from '@/common/persistence/unit-of-work';
import type { ClaimedEvent } from './outbox.repository';

/**
 * A reader of the outbox beside webhook delivery (flow triggers). It gets each claimed batch inside the claiming
 * transaction, so it sees exactly the events webhooks see, each once, and its writes commit with the claim; the
 * function it answers runs after the commit (queueing jobs).
 */
export interface OutboxConsumer {
  name: string;
  claimed(tx: Transaction, events: readonly ClaimedEvent[]): Promise<() => Promise<void>>;
}

/** Consumers registered by other modules' worker modules; the delivery dispatcher hands each of them every batch. */
@Injectable()
export class OutboxConsumers {
  private readonly list: OutboxConsumer[] = [];

  register(consumer: OutboxConsumer): void {
    if (!this.list.some((c) => c.name === consumer.name)) this.list.push(consumer);
  }

  all(): readonly OutboxConsumer[] {
    return this.list;
  }
}
