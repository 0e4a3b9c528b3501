import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
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
}
