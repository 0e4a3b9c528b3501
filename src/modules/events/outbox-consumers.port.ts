import type { Transaction } from '@/common/persistence/unit-of-work';
import { declarePort } from '@/modules/ports';
import type { ClaimedEvent } from './outbox.repository';

/**
 * The readers of the outbox beside webhook delivery (flows' triggers). The events module declares the port, a list;
 * PortBindingsModule binds it to the consumers of the modules above. Delivery's dispatcher hands each of them every
 * claimed batch.
 */
export const OUTBOX_CONSUMERS = declarePort('OUTBOX_CONSUMERS', 'events');

/**
 * A reader of the outbox beside webhook delivery. It gets each claimed batch inside the claiming transaction, so it
 * sees exactly the events webhooks see, each once, and its writes commit with the claim; the function it answers
 * runs after the commit (queueing jobs).
 */
export interface OutboxConsumer {
  name: string;
  claimed(tx: Transaction, events: readonly ClaimedEvent[]): Promise<() => Promise<void>>;
}
