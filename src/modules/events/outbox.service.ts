import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { newId } from '@/common/persistence/base.entity';
import { EventType, OutboxEvent } from './outbox-event.entity';

/** The PostgreSQL channel notified at the commit of every outbox write. */
export const OUTBOX_CHANNEL = 'outbox_events';

export interface DomainEvent {
  type: EventType;
  agentId: string | null;
  data: Record<string, unknown>;
}

/**
 * The outbox: domain events are written with the manager of the transaction that makes the change, so an event
 * exists exactly when its change does. A NOTIFY in the same transaction wakes the dispatchers at commit.
 */
@Injectable()
export class OutboxService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async record(manager: EntityManager, workspaceId: string, events: DomainEvent[]): Promise<void> {
    if (!events.length) return;
    const repo = manager.getRepository(OutboxEvent);
    await repo.insert(
      events.map(
        (e) =>
          ({
            id: newId(),
            workspaceId,
            type: e.type,
            agentId: e.agentId,
            data: e.data,
            dispatchedAt: null,
          }) as QueryDeepPartialEntity<OutboxEvent>,
      ),
    );
    // Delivered at commit only (and folded into one per transaction), so listeners never see uncommitted rows.
    await manager.query(`SELECT pg_notify('${OUTBOX_CHANNEL}', '')`);
  }

  /**
   * Retention: deletes events dispatched more than `days` ago with no delivery still pending; their deliveries and
   * attempts go with them. In batches, so the table is never locked long. Answers how many events went.
   */
  async purgeDelivered(days: number, batchSize = 1000): Promise<number> {
    let total = 0;
    for (;;) {
      const [, deleted] = (await this.dataSource.query(
        `DELETE FROM outbox_events WHERE id IN (
           SELECT o.id FROM outbox_events o
            WHERE o.dispatched_at IS NOT NULL AND o.dispatched_at < now() - make_interval(days => $1)
              AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = o.id AND d.status = 'pending')
            LIMIT $2)`,
        [days, batchSize],
      )) as [unknown, number];
      total += deleted;
      if (deleted < batchSize) return total;
    }
  }
}
