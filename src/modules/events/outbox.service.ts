import { Injectable } from '@nestjs/common';
import type { Transaction } from '@/common/persistence/unit-of-work';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { EventType } from './outbox-event.entity';
import { ClaimedEvent, OutboxRepository } from './outbox.repository';

export { NOTIFY_OUTBOX, OUTBOX_CHANNEL } from './outbox.repository';
export type { ClaimedEvent } from './outbox.repository';

export interface DomainEvent {
  type: EventType;
  agentId: string | null;
  data: Record<string, unknown>;
}

/**
 * The outbox: domain events are written with the transaction that makes the change, so an event exists exactly
 * when its change does. A NOTIFY in the same transaction wakes the dispatchers at commit.
 */
@Injectable()
export class OutboxService {
  constructor(private readonly events: OutboxRepository) {}

  /** Writes the events in the caller's transaction; answers their ids in order. */
  async record(tx: Transaction, workspaceId: WorkspaceId, events: DomainEvent[]): Promise<string[]> {
    return events.length ? this.events.append(tx, workspaceId, events) : [];
  }

  /** The workspace's latest events of these types, newest first. */
  recent(workspaceId: WorkspaceId, types: string[], limit: number): Promise<ClaimedEvent[]> {
    return this.events.recent(workspaceId, types, limit);
  }

  /**
   * Retention: deletes events dispatched more than `days` ago with no delivery still pending; their deliveries and
   * attempts go with them. In batches, so the table is never locked long. Answers how many events went.
   */
  async purgeDelivered(days: number, batchSize = 1000): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.events.purgeDeliveredBatch(days, batchSize);
      total += deleted;
      if (deleted < batchSize) return total;
    }
  }
}
