import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { newId } from '@/common/persistence/base.entity';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { ActionLogEntry, ActionLogType } from './action-log.entity';

export interface ActionLogInput {
  type: ActionLogType;
  name: string;
  status: string;
  channel?: string | null;
  durationMs?: number | null;
  agentId?: string | null;
  contactId?: string | null;
  subjectId?: string | null;
  request?: unknown;
  response?: unknown;
  error?: string | null;
}

/** The columns an action-log write fills, in the order of the rows of `actionLogValues`. */
export const ACTION_LOG_COLUMNS =
  'id, workspace_id, type, name, status, channel, duration_ms, agent_id, contact_id, subject_id, request, response, error';

/**
 * The VALUES rows of entries for ACTION_LOG_COLUMNS, their parameters appended to `params`, with new ids. `keys`, one
 * per entry, adds a last column to each row (a uuid the statement joins on).
 */
export function actionLogValues(
  workspaceId: WorkspaceId,
  entries: ActionLogInput[],
  params: unknown[],
  keys?: string[],
): { rows: string; ids: string[] } {
  const ids: string[] = [];
  const rows = entries.map((e, i) => {
    const id = newId();
    ids.push(id);
    const at = params.length;
    params.push(
      id,
      workspaceId,
      e.type,
      e.name.slice(0, 255),
      e.status,
      e.channel ?? null,
      e.durationMs == null ? null : Math.round(e.durationMs),
      e.agentId ?? null,
      e.contactId ?? null,
      e.subjectId ?? null,
      e.request === undefined ? null : JSON.stringify(e.request),
      e.response === undefined ? null : JSON.stringify(e.response),
      e.error ?? null,
    );
    const p = (k: number) => `$${at + k}`;
    const key = keys ? `, $${params.push(keys[i])}::uuid` : '';
    return (
      `(${p(1)}::uuid, ${p(2)}::uuid, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)}::int, ${p(8)}::uuid, ` +
      `${p(9)}::uuid, ${p(10)}::uuid, ${p(11)}::jsonb, ${p(12)}::jsonb, ${p(13)}${key})`
    );
  });
  return { rows: rows.join(', '), ids };
}

@Injectable()
export class ActionLogsRepository extends WorkspaceScopedRepository<ActionLogEntry> {
  constructor(@InjectRepository(ActionLogEntry) repo: Repository<ActionLogEntry>) {
    super(repo);
  }

  /** Appends one row; inside `tx` when the action's own change is being written. Returns its id. */
  async append(workspaceId: WorkspaceId, e: ActionLogInput, tx?: EntityManager): Promise<string> {
    const params: unknown[] = [];
    const { rows, ids } = actionLogValues(workspaceId, [e], params);
    await this.sql(`INSERT INTO action_logs (${ACTION_LOG_COLUMNS}) VALUES ${rows}`, params, tx);
    return ids[0];
  }

  /** Newest first, filtered; with names of the agent and contact. */
  async list(workspaceId: WorkspaceId, f: ActionLogFilter): Promise<[ActionLogRow[], number]> {
    const where = ['l.workspace_id = $1'];
    const params: unknown[] = [workspaceId];
    const add = (sql: string, v: unknown) => where.push(sql.replace('?', `$${params.push(v)}`));
    if (f.type) add('l.type = ?', f.type);
    if (f.status) add('l.status = ?', f.status);
    if (f.agentId) add('l.agent_id = ?', f.agentId);
    if (f.from) add('l.created_at >= ?', f.from);
    if (f.to) add('l.created_at <= ?', f.to);
    const filter = where.join(' AND ');
    const [{ total }] = await this.sql<Array<{ total: number }>>(
      `SELECT count(*)::int AS total FROM action_logs l WHERE ${filter}`,
      params,
    );
    const rows = await this.sql<ActionLogRow[]>(
      `${VIEW_SQL} WHERE ${filter} ORDER BY l.created_at DESC, l.id DESC
        LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, f.take, f.skip],
    );
    return [rows, total];
  }

  async view(workspaceId: WorkspaceId, type: ActionLogType, id: string): Promise<ActionLogRow | null> {
    const rows = await this.sql<ActionLogRow[]>(
      `${VIEW_SQL} WHERE l.workspace_id = $1 AND l.type = $2 AND l.id = $3`,
      [workspaceId, type, id],
    );
    return rows[0] ?? null;
  }
}

const VIEW_SQL = `SELECT l.id, l.type, l.name, l.status, l.channel, l.duration_ms, l.agent_id, a.name AS agent_name,
         l.contact_id, NULLIF(concat_ws(' ', c.name, c.surname), '') AS contact_name, l.request, l.response,
         l.error, l.created_at
    FROM action_logs l
    LEFT JOIN agents a ON a.workspace_id = l.workspace_id AND a.id = l.agent_id
    LEFT JOIN contacts c ON c.workspace_id = l.workspace_id AND c.id = l.contact_id`;

export interface ActionLogFilter {
  type?: ActionLogType;
  status?: string;
  agentId?: string;
  from?: Date;
  to?: Date;
  skip: number;
  take: number;
}

/** An action row with its agent's and contact's names. */
export interface ActionLogRow {
  id: string;
  type: ActionLogType;
  name: string;
  status: string;
  channel: string | null;
  duration_ms: number | null;
  agent_id: string | null;
  agent_name: string | null;
  contact_id: string | null;
  contact_name: string | null;
  request: unknown;
  response: unknown;
  error: string | null;
  created_at: Date;
}
