import { Injectable } from '@nestjs/common';

/** A reader of the outbox besides webhook delivery (flow triggers): woken at each commit and by the sweep. */
export interface OutboxConsumer {
  name: string;
  dispatch(): Promise<void>;
}

/** Consumers registered by other modules' worker modules; the outbox listener wakes each of them. */
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
