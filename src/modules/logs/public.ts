import { insertPerRowSql } from '@/common/persistence/insert-per-row';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { ACTION_LOG_COLUMNS, ActionLogInput, actionLogValues } from './action-logs.repository';

/**
 * What the logs module offers other modules besides the providers its module exports (ActionLog among them): the
 * action-log write as a part of the caller's own statement (the body of one of its CTEs), so the rows are written
 * exactly with the change they log, one statement for a whole batch.
 */
export type { ActionLogInput } from './action-logs.repository';

/**
 * An INSERT of each entry whose row of `written` (a CTE answering `id`) was written: `items[i].entry` goes with the
 * row whose `id` is `items[i].key`. Their parameters are appended to `params`.
 */
export function actionLogInsertPerRow(
  written: string,
  workspaceId: WorkspaceId,
  items: Array<{ key: string; entry: ActionLogInput }>,
  params: unknown[],
): string {
  const { rows } = actionLogValues(
    workspaceId,
    items.map((i) => i.entry),
    params,
    items.map((i) => i.key),
  );
  return insertPerRowSql('action_logs', ACTION_LOG_COLUMNS, rows, written);
}
