import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { VoicemailOverride } from '@/modules/agents/voicemail-policy';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { Task, TaskAttempt, TaskStatus } from '../outbound.entities';
import { MovedTask, NEW_TASK_COLUMNS, NewTask, returned, TaskRow } from '../task-row';

/** Which tasks a bulk move touches; every key given narrows it. */
export interface TaskScope {
  ids?: string[];
  campaignId?: string;
  poolId?: string;
  contactId?: string;
}

export interface TaskFilter {
  type?: string;
  status?: string;
  contactId?: string;
  campaignId?: string;
  poolId?: string;
  agentId?: string;
  priority?: number;
  scheduledFrom?: Date;
  scheduledTo?: Date;
  skip: number;
  take: number;
}

export interface CampaignStats {
  tasks: number;
  scheduled: number;
  pending: number;
  queued: number;
  in_progress: number;
  completed: number;
  failed: number;
  cancelled: number;
  expired: number;
  on_hold: number;
  /** Tasks ended on a voicemail (their last call reached a machine and was not tried again). */
  voicemail: number;
  answered: number;
  attempts: number;
}

/**
 * The predicate of the unique index on (workspace, campaign, contact): at most one task that has not ended per
 * contact and campaign. An insert's ON CONFLICT names it to skip a contact that has one.
 */
const LIVE_IN_CAMPAIGN = `campaign_id IS NOT NULL AND status IN ('scheduled', 'pending', 'queued', 'in_progress', 'on_hold')`;

const COLUMNS = Object.keys(NEW_TASK_COLUMNS) as (keyof typeof NEW_TASK_COLUMNS)[];
const quote = (c: string) => (c === 'window' ? '"window"' : c);

@Injectable()
export class TasksRepository extends WorkspaceScopedRepository<Task> {
  constructor(
    @InjectRepository(Task) repo: Repository<Task>,
    @InjectRepository(TaskAttempt) private readonly attemptsRepo: Repository<TaskAttempt>,
  ) {
    super(repo);
  }

  /** Writes new tasks; a contact that has a task not ended in the campaign is skipped. Answers those written. */
  async insertMany(workspaceId: WorkspaceId, tasks: NewTask[], tx: EntityManager): Promise<TaskRow[]> {
    const out: TaskRow[] = [];
    const cols = COLUMNS.map(quote).join(', ');
    const recordset = COLUMNS.map((c) => `${quote(c)} ${NEW_TASK_COLUMNS[c]}`).join(', ');
    for (let i = 0; i < tasks.length; i += 2000) {
      const rows = await this.sql<TaskRow[]>(
        `INSERT INTO outbound_tasks (workspace_id, ${cols})
         SELECT $1, ${COLUMNS.map((c) => `x.${quote(c)}`).join(', ')} FROM jsonb_to_recordset($2::jsonb) AS x(${recordset})
           JOIN contacts k ON k.workspace_id = $1 AND k.id = x.contact_id
         ON CONFLICT (workspace_id, campaign_id, contact_id) WHERE ${LIVE_IN_CAMPAIGN} DO NOTHING
         RETURNING *`,
        [workspaceId, JSON.stringify(tasks.slice(i, i + 2000))],
        tx,
      );
      out.push(...rows);
    }
    return out;
  }

  /** A campaign's `variables`, `metadata` and `voicemail`, as changed, on its tasks that are in `statuses`. */
  async applyContext(
    workspaceId: WorkspaceId,
    campaignId: string,
    context: {
      variables?: Record<string, string>;
      metadata?: Record<string, unknown>;
      voicemail?: VoicemailOverride | null;
    },
    statuses: TaskStatus[],
    tx: EntityManager,
  ): Promise<void> {
    await this.sql(
      `UPDATE outbound_tasks SET variables = COALESCE($4::jsonb, variables), metadata = COALESCE($5::jsonb, metadata),
              voicemail = CASE WHEN $6 THEN $7::jsonb ELSE voicemail END, updated_at = now()
        WHERE workspace_id = $1 AND campaign_id = $2 AND status = ANY($3)`,
      [
        workspaceId,
        campaignId,
        statuses,
        context.variables === undefined ? null : JSON.stringify(context.variables),
        context.metadata === undefined ? null : JSON.stringify(context.metadata),
        context.voicemail !== undefined,
        context.voicemail ? JSON.stringify(context.voicemail) : null,
      ],
      tx,
    );
  }

  async get(workspaceId: WorkspaceId, id: string, tx?: EntityManager): Promise<TaskRow | null> {
    const rows = await this.sql<TaskRow[]>(
      `SELECT * FROM outbound_tasks WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, id],
      tx,
    );
    return rows[0] ?? null;
  }

  async lock(workspaceId: WorkspaceId, id: string, tx: EntityManager): Promise<TaskRow | null> {
    const rows = await this.sql<TaskRow[]>(
      `SELECT * FROM outbound_tasks WHERE workspace_id = $1 AND id = $2 FOR UPDATE`,
      [workspaceId, id],
      tx,
    );
    return rows[0] ?? null;
  }

  /** Changes columns of one task (keys are column names); answers the row as written. */
  async update(
    workspaceId: WorkspaceId,
    id: string,
    patch: Record<string, unknown>,
    tx: EntityManager,
  ): Promise<TaskRow> {
    const keys = Object.keys(patch);
    const set = keys.map((k, i) => `${quote(k)} = $${i + 3}`).join(', ');
    const values = keys.map((k) => jsonValue(k, patch[k]));
    const rows = returned<TaskRow>(
      await this.sql(
        `UPDATE outbound_tasks SET ${set}, updated_at = now() WHERE workspace_id = $1 AND id = $2 RETURNING *`,
        [workspaceId, id, ...values],
        tx,
      ),
    );
    return rows[0];
  }

  /**
   * Moves every task of the scope that is in one of `from` to `to` (with `set`, SQL assignments that may use
   * `o.prev`, the status left), under row locks. Answers each task moved with the status it left.
   */
  async move(
    workspaceId: WorkspaceId,
    scope: TaskScope,
    from: TaskStatus[],
    to: TaskStatus | 'held',
    tx: EntityManager,
    set = '',
  ): Promise<MovedTask[]> {
    const params: unknown[] = [workspaceId, from];
    const where = ['workspace_id = $1', 'status = ANY($2)'];
    const add = (sql: string, v: unknown) => {
      params.push(v);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (scope.ids) add('id = ANY(?)', scope.ids);
    if (scope.campaignId) add('campaign_id = ?', scope.campaignId);
    if (scope.poolId) add('pool_id = ?', scope.poolId);
    if (scope.contactId) add('contact_id = ?', scope.contactId);
    const status = to === 'held' ? 'coalesce(t.held_status, o.prev)' : `'${to}'`;
    const rows = returned<TaskRow & { prev: TaskStatus }>(
      await this.sql(
        `UPDATE outbound_tasks t SET status = ${status}, updated_at = now()${set ? `, ${set}` : ''}
         FROM (SELECT id, status AS prev FROM outbound_tasks WHERE ${where.join(' AND ')}
               ORDER BY id FOR UPDATE) o
        WHERE t.workspace_id = $1 AND t.id = o.id
        RETURNING t.*, o.prev`,
        params,
        tx,
      ),
    );
    return rows.map(({ prev, ...task }) => ({ task: task as TaskRow, previous: prev }));
  }

  async list(workspaceId: WorkspaceId, f: TaskFilter): Promise<[TaskRow[], number]> {
    const params: unknown[] = [workspaceId];
    const where = ['workspace_id = $1'];
    const add = (sql: string, v: unknown) => {
      if (v === undefined) return;
      params.push(v);
      where.push(sql.replace('?', `$${params.length}`));
    };
    add('type = ?', f.type);
    add('status = ANY(?)', f.status?.split(','));
    add('contact_id = ?', f.contactId);
    add('campaign_id = ?', f.campaignId);
    add('pool_id = ?', f.poolId);
    add('agent_id = ?', f.agentId);
    add('priority = ?', f.priority);
    add('scheduled_at >= ?', f.scheduledFrom);
    add('scheduled_at <= ?', f.scheduledTo);
    const clause = where.join(' AND ');
    const total = await this.sql<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM outbound_tasks WHERE ${clause}`,
      params,
    );
    const rows = await this.sql<TaskRow[]>(
      `SELECT * FROM outbound_tasks WHERE ${clause}
        ORDER BY scheduled_at ASC, priority DESC, id ASC LIMIT ${f.take} OFFSET ${f.skip}`,
      params,
    );
    return [rows, total[0].n];
  }

  /**
   * Counts by status, attempts and answered calls: one index-only walk of the campaign's tasks
   * (`ix_outbound_tasks_campaign_stats`). A task whose call was answered ends `completed` and never moves again, so
   * its last outcome says it was answered: the count of answered attempts without reading them.
   */
  async stats(workspaceId: WorkspaceId, campaignId: string): Promise<CampaignStats> {
    const rows = await this.sql<{ status: TaskStatus; n: number; attempts: number; answered: number }[]>(
      `SELECT status, count(*)::int AS n, coalesce(sum(attempts), 0)::int AS attempts,
              (count(*) FILTER (WHERE last_outcome = 'completed'))::int AS answered
         FROM outbound_tasks WHERE workspace_id = $1 AND campaign_id = $2 GROUP BY status`,
      [workspaceId, campaignId],
    );
    const stats: CampaignStats = {
      tasks: 0,
      scheduled: 0,
      pending: 0,
      queued: 0,
      in_progress: 0,
      completed: 0,
      failed: 0,
      cancelled: 0,
      expired: 0,
      on_hold: 0,
      voicemail: 0,
      answered: 0,
      attempts: 0,
    };
    for (const r of rows) {
      stats[r.status] = r.n;
      stats.tasks += r.n;
      stats.attempts += r.attempts;
      stats.answered += r.answered;
    }
    return stats;
  }

  attempts(workspaceId: WorkspaceId, taskId: string): Promise<TaskAttempt[]> {
    return this.attemptsRepo.find({ where: { workspaceId, taskId }, order: { number: 'ASC' } });
  }

  async insertAttempt(
    workspaceId: WorkspaceId,
    a: Pick<
      TaskAttempt,
      'id' | 'taskId' | 'number' | 'conversationId' | 'messageId' | 'localDay' | 'startedAt'
    >,
    tx: EntityManager,
  ): Promise<void> {
    await this.sql(
      `INSERT INTO outbound_task_attempts
         (id, workspace_id, task_id, number, conversation_id, message_id, local_day, started_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
      [a.id, workspaceId, a.taskId, a.number, a.conversationId, a.messageId, a.localDay, a.startedAt],
      tx,
    );
  }

  async endAttempt(
    workspaceId: WorkspaceId,
    taskId: string,
    number: number,
    outcome: string,
    endedAt: Date,
    tx: EntityManager,
  ): Promise<void> {
    await this.sql(
      `UPDATE outbound_task_attempts SET outcome = $4, ended_at = $5, updated_at = now()
        WHERE workspace_id = $1 AND task_id = $2 AND number = $3`,
      [workspaceId, taskId, number, outcome, endedAt],
      tx,
    );
  }

  /** Attempts of the task started on the contact's local day `day`. */
  async attemptsOn(
    workspaceId: WorkspaceId,
    taskId: string,
    day: string,
    tx: EntityManager,
  ): Promise<number> {
    const rows = await this.sql<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM outbound_task_attempts WHERE workspace_id = $1 AND task_id = $2 AND local_day = $3`,
      [workspaceId, taskId, day],
      tx,
    );
    return rows[0].n;
  }
}

function jsonValue(key: string, v: unknown): unknown {
  const json = ['retry_on', 'window', 'task_data', 'variables', 'metadata', 'failure_data'];
  return json.includes(key) && v !== null && v !== undefined ? JSON.stringify(v) : v;
}
