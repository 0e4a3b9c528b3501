import { agentConfigVersionSql } from '@/common/persistence/agent-config-version';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { newId } from '@/common/persistence/base.entity';
import { Sweep } from '@/common/persistence/sweep';
import type { Transaction } from '@/common/persistence/unit-of-work';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import { currentTraceparent } from '@/common/telemetry/trace-context';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { currentChain } from './event-chain';
import { EventType, OutboxEvent } from './outbox-event.entity';

/** The PostgreSQL channel notified at the commit of every outbox write. */
export const OUTBOX_CHANNEL = 'outbox_events';
/**
 * The NOTIFY an outbox write sends (in a RETURNING, delivered at commit): its payload is the writer's session name,
 * so a dispatcher leaves the events of another dispatching process to that process (`dispatchedByWriter`).
 */
export const NOTIFY_OUTBOX = `pg_notify('${OUTBOX_CHANNEL}', current_setting('application_name'))`;

export interface ClaimedEvent {
  id: string;
  workspace_id: WorkspaceId;
  type: EventType;
  agent_id: string | null;
  data: Record<string, unknown>;
  /** The flow executions that caused the event, oldest first; null when none did. */
  chain: string[] | null;
  created_at: Date;
  /** The trace it was written in (W3C traceparent; null with tracing off). Absent outside a claim. */
  trace_parent?: string | null;
  /**
   * The workspace's configuration version as the claim read it (agent_config_versions; moved by every change to
   * webhooks, agent webhooks and flows among others): routes kept under it are still right. Absent outside a claim.
   */
  config_version?: string | null;
}

export interface EventToSend {
  id: string;
  type: string;
  data: unknown;
  created_at: Date;
  slug: string;
}

/**
 * An event to write. `chain`: the flow executions that caused it, when the writer speaks for several executions at
 * once (one statement ending many); otherwise the chain of the running code (`runInChain`).
 */
export type OutboxEventInput = Pick<OutboxEvent, 'type' | 'agentId' | 'data'> & { chain?: readonly string[] };

/** The columns an outbox write fills, in the order of the rows of `outboxValues`. */
export const OUTBOX_COLUMNS = 'id, workspace_id, type, agent_id, data, chain, trace_parent';

/**
 * The VALUES rows of events for OUTBOX_COLUMNS, their parameters appended to `params`, with new ids; events caused
 * by a flow execution carry its chain (their own, or the running code's), and all the current trace (tracing on), so
 * their deliveries continue it. `keys`, one per event, adds a last
 * column to each row (a uuid the statement joins on). For statements that write events beside another change.
 */
export function outboxValues(
  workspaceId: WorkspaceId,
  events: OutboxEventInput[],
  params: unknown[],
  keys?: string[],
): { rows: string; ids: string[] } {
  const current = currentChain();
  const trace = currentTraceparent();
  const ids: string[] = [];
  const rows = events.map((e, i) => {
    const id = newId();
    ids.push(id);
    const chain = e.chain ?? current;
    const at = params.length;
    params.push(
      id,
      workspaceId,
      e.type,
      e.agentId,
      JSON.stringify(e.data),
      chain?.length ? [...chain] : null,
      trace,
    );
    const p = (k: number) => `$${at + k}`;
    const key = keys ? `, $${params.push(keys[i])}::uuid` : '';
    return `(${p(1)}::uuid, ${p(2)}::uuid, ${p(3)}, ${p(4)}::uuid, ${p(5)}::jsonb, ${p(6)}::uuid[], ${p(7)}::text${key})`;
  });
  return { rows: rows.join(', '), ids };
}

@Injectable()
export class OutboxRepository extends WorkspaceScopedRepository<OutboxEvent> {
  constructor(@InjectRepository(OutboxEvent) repo: Repository<OutboxEvent>) {
    super(repo);
  }

  /**
   * Writes events in the transaction of their change, in one statement whose RETURNING notifies the dispatchers:
   * PostgreSQL delivers the NOTIFY at commit only (folded into one per transaction), so listeners never see
   * uncommitted rows. Events caused by a flow execution carry its chain. Answers their ids in order.
   */
  async append(tx: Transaction, workspaceId: WorkspaceId, events: OutboxEventInput[]): Promise<string[]> {
    if (!events.length) return [];
    const values: unknown[] = [];
    const { rows, ids } = outboxValues(workspaceId, events, values);
    await this.sql(
      `INSERT INTO outbox_events (${OUTBOX_COLUMNS}) VALUES ${rows} RETURNING ${NOTIFY_OUTBOX}`,
      values,
      tx,
    );
    return ids;
  }

  /** Marks a batch of undispatched events of every workspace as dispatched (SKIP LOCKED: claims side by side). */
  @Sweep('dispatch')
  async claimUndispatched(tx: Transaction, limit: number): Promise<ClaimedEvent[]> {
    const [events] = await this.sql<[ClaimedEvent[], number]>(
      `UPDATE outbox_events SET dispatched_at = now()
        WHERE id IN (SELECT id FROM outbox_events WHERE dispatched_at IS NULL
                      ORDER BY created_at, id LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING id, workspace_id, type, agent_id, data, chain, created_at, trace_parent,
                  ${agentConfigVersionSql('outbox_events')} AS config_version`,
      [limit],
      tx,
    );
    // RETURNING follows no order: consumers see the batch in the order the events were written.
    return events.sort((a, b) => +new Date(a.created_at) - +new Date(b.created_at) || (a.id < b.id ? -1 : 1));
  }

  /** The workspace's latest events of these types, newest first (samples for a trigger test). */
  async recent(workspaceId: WorkspaceId, types: string[], limit: number): Promise<ClaimedEvent[]> {
    return this.sql<ClaimedEvent[]>(
      `SELECT id, workspace_id, type, agent_id, data, chain, created_at FROM outbox_events
        WHERE workspace_id = $1 AND type = ANY($2) ORDER BY created_at DESC, id DESC LIMIT $3`,
      [workspaceId, types, limit],
    );
  }

  /** An event with its workspace's slug, as a delivery sends it. */
  async toSend(workspaceId: WorkspaceId, eventId: string): Promise<EventToSend | undefined> {
    const rows = (await this.sql(
      `SELECT o.id, o.type, o.data, o.created_at, w.slug FROM outbox_events o
         JOIN workspaces w ON w.id = o.workspace_id
        WHERE o.workspace_id = $1 AND o.id = $2`,
      [workspaceId, eventId],
    )) as EventToSend[];
    return rows[0];
  }

  /** One batch of events of every workspace dispatched before the cut-off with no delivery pending; answers how many. */
  @Sweep('retention')
  async purgeDeliveredBatch(days: number, batchSize: number): Promise<number> {
    const [, deleted] = (await this.sql(
      `DELETE FROM outbox_events WHERE id IN (
         SELECT o.id FROM outbox_events o
          WHERE o.dispatched_at IS NOT NULL AND o.dispatched_at < now() - make_interval(days => $1)
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = o.id AND d.status = 'pending')
          LIMIT $2)`,
      [days, batchSize],
    )) as [unknown, number];
    return deleted;
  }
}
