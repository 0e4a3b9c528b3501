import { insertPerRowSql } from '@/common/persistence/insert-per-row';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { NOTIFY_OUTBOX, OUTBOX_COLUMNS, OutboxEventInput, outboxValues } from './outbox.repository';

/**
 * What the events module offers other modules besides the providers its module exports (OutboxService among
 * them): the outbox write as a part of the caller's own statement, so a row and its events are written by one
 * statement (in the caller's transaction, or as one of its own) and exist exactly together. Each part is the body of
 * a CTE of that statement; its parameters are appended to the statement's `params`.
 */
export type { OutboxEventInput } from './outbox.repository';

/**
 * An INSERT of `events` for each row of `written`, a CTE of the same statement that answers `workspace_id` (a row
 * just inserted), RETURNING the NOTIFY: the events are written exactly when that row is.
 */
export function outboxInsertFor(
  written: string,
  workspaceId: WorkspaceId,
  events: OutboxEventInput[],
  params: unknown[],
): string {
  const { rows } = outboxValues(workspaceId, events, params);
  return `INSERT INTO outbox_events (${OUTBOX_COLUMNS})
    SELECT e.* FROM (VALUES ${rows}) AS e (${OUTBOX_COLUMNS}) JOIN ${written} w ON w.workspace_id = e.workspace_id
    RETURNING ${NOTIFY_OUTBOX}`;
}

/**
 * An INSERT of each event whose row of `written` (a CTE answering `id`) was written: `items[i].event` goes with the
 * row whose `id` is `items[i].key`. RETURNING the NOTIFY. One statement for a whole batch of rows.
 */
export function outboxInsertPerRow(
  written: string,
  workspaceId: WorkspaceId,
  items: Array<{ key: string; event: OutboxEventInput }>,
  params: unknown[],
): string {
  const { rows } = outboxValues(
    workspaceId,
    items.map((i) => i.event),
    params,
    items.map((i) => i.key),
  );
  return insertPerRowSql('outbox_events', OUTBOX_COLUMNS, rows, written, NOTIFY_OUTBOX);
}
