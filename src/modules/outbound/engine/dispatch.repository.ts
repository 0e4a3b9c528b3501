import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { Sweep } from '@/common/persistence/sweep';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import {
  Campaign,
  CampaignStatus,
  DIALLING,
  NOT_ENDED,
  PoolType,
  Task,
  TaskStatus,
} from '../outbound.entities';
import { EndedCall, MovedTask, returned, TaskRow } from '../task-row';

export interface TaskRef {
  workspace_id: WorkspaceId;
  id: string;
}

/** A pending task picked for dispatch, with the zone and address of its contact. */
export type PickedTask = TaskRow & { contact_timezone: string | null };

const PICK_ORDER: Record<PoolType, string> = {
  FIFO: 't.member_added_at ASC, t.id ASC',
  LIFO: 't.member_added_at DESC, t.id DESC',
  Parallel: 't.priority DESC, t.member_added_at ASC, t.id ASC',
};

type MovedRow = TaskRow & { prev: TaskStatus };
const moved = (result: unknown): MovedTask[] =>
  returned<MovedRow>(result).map(({ prev, ...task }) => ({ task: task as TaskRow, previous: prev }));

/**
 * The dispatcher's statements. Those marked `@Sweep('dispatch')` span workspaces (finding due work); the rest act
 * on one workspace's rows.
 */
@Injectable()
export class DispatchRepository extends WorkspaceScopedRepository<Task> {
  constructor(@InjectRepository(Task) repo: Repository<Task>) {
    super(repo);
  }

  /** `scheduled` tasks whose due time has come become `pending`. */
  @Sweep('dispatch')
  async promoteDue(now: Date, tx: EntityManager, limit = 5000): Promise<MovedTask[]> {
    return moved(
      await this.sql(
        `UPDATE outbound_tasks t SET status = 'pending', updated_at = now()
           FROM (SELECT id, status AS prev FROM outbound_tasks
                  WHERE status = 'scheduled' AND scheduled_at <= $1
                  ORDER BY scheduled_at LIMIT $2 FOR UPDATE SKIP LOCKED) o
          WHERE t.id = o.id RETURNING t.*, o.prev`,
        [now, limit],
        tx,
      ),
    );
  }

  /** Not-started tasks past their `expires_at` become `expired`. */
  @Sweep('dispatch')
  async expireDue(now: Date, tx: EntityManager, limit = 5000): Promise<MovedTask[]> {
    return moved(
      await this.sql(
        `UPDATE outbound_tasks t SET status = 'expired', held_status = NULL, updated_at = now()
           FROM (SELECT id, status AS prev FROM outbound_tasks
                  WHERE expires_at <= $1 AND expires_at IS NOT NULL AND status IN ('scheduled', 'pending', 'on_hold')
                  LIMIT $2 FOR UPDATE SKIP LOCKED) o
          WHERE t.id = o.id RETURNING t.*, o.prev`,
        [now, limit],
        tx,
      ),
    );
  }

  /** Campaigns whose `end_at` has passed: running ones, and paused ones with tasks not yet started. */
  @Sweep('dispatch')
  campaignsPastEnd(now: Date): Promise<TaskRef[]> {
    return this.sql<TaskRef[]>(
      `SELECT c.workspace_id, c.id FROM outbound_campaigns c
        WHERE c.end_at <= $1
          AND (c.status = 'running'
               OR c.status = 'paused' AND EXISTS (
                    SELECT 1 FROM outbound_tasks t WHERE t.workspace_id = c.workspace_id AND t.campaign_id = c.id
                       AND t.status IN ('scheduled', 'pending', 'on_hold')))`,
      [now],
    );
  }

  /**
   * Running campaigns past their start whose every task has ended, none at all included (all members removed, or
   * pools empty at the start).
   */
  @Sweep('dispatch')
  campaignsDone(now: Date): Promise<TaskRef[]> {
    return this.sql<TaskRef[]>(
      `SELECT c.workspace_id, c.id FROM outbound_campaigns c
        WHERE c.status = 'running' AND (c.start_at IS NULL OR c.start_at <= $1)
          AND NOT EXISTS (SELECT 1 FROM outbound_tasks t
                           WHERE t.workspace_id = c.workspace_id AND t.campaign_id = c.id AND t.status = ANY($2))`,
      [now, NOT_ENDED],
    );
  }

  /** Running campaigns (past their start) with pending tasks, and completed ones with a task retried since. */
  @Sweep('dispatch')
  campaignsWithPending(now: Date): Promise<TaskRef[]> {
    return this.sql<TaskRef[]>(
      `SELECT c.workspace_id, c.id FROM outbound_campaigns c
        WHERE c.status = ANY($2) AND (c.start_at IS NULL OR c.start_at <= $1)
          AND EXISTS (SELECT 1 FROM outbound_tasks t WHERE t.campaign_id = c.id AND t.status = 'pending'
                         AND (c.status = 'running' OR t.retried))`,
      [now, DIALLING],
    );
  }

  /** Claims due pending tasks of no campaign, oldest due first. */
  @Sweep('dispatch')
  async claimStandalone(owner: string, now: Date, tx: EntityManager, limit = 50): Promise<MovedTask[]> {
    return moved(
      await this.sql(
        `UPDATE outbound_tasks t SET status = 'queued', claimed_by = $1, claimed_at = now(), updated_at = now()
           FROM (SELECT id, status AS prev FROM outbound_tasks
                  WHERE status = 'pending' AND campaign_id IS NULL AND scheduled_at <= $3
                  ORDER BY scheduled_at, priority DESC LIMIT $2 FOR UPDATE SKIP LOCKED) o
          WHERE t.id = o.id RETURNING t.*, o.prev`,
        [owner, limit, now],
        tx,
      ),
    );
  }

  /** Tasks in progress whose call has ended. */
  @Sweep('dispatch')
  endedCalls(limit = 500): Promise<TaskRef[]> {
    return this.sql<TaskRef[]>(
      `SELECT t.workspace_id, t.id FROM outbound_tasks t
         JOIN calls c ON c.workspace_id = t.workspace_id AND c.id = t.current_call_id
        WHERE t.status = 'in_progress' AND t.type = 'make_call' AND c.ended_at IS NOT NULL
        LIMIT $1`,
      [limit],
    );
  }

  /**
   * Message tasks in progress whose message has an outcome: `delivered` or `read`, `failed` or `undelivered`, or
   * `sent` with nothing later for 24 h at `now` (the engine's clock). Messages still on their way are not read on
   * every pass, so a backlog of undelivered ones never hides those that have settled.
   */
  @Sweep('dispatch')
  settledMessages(now: Date, limit = 500): Promise<TaskRef[]> {
    return this.sql<TaskRef[]>(
      `SELECT t.workspace_id, t.id FROM outbound_tasks t
         JOIN provider_messages p ON p.workspace_id = t.workspace_id AND p.id = t.current_message_id
        WHERE t.status = 'in_progress' AND t.type = 'send_message'
          AND (p.delivery_status IN ('delivered', 'read', 'failed', 'undelivered')
               OR (p.delivery_status = 'sent' AND p.status_updated_at <= $1::timestamptz - interval '24 hours'))
        LIMIT $2`,
      [now, limit],
    );
  }

  /** Tasks claimed before `before` and still `queued`: their dispatcher died between claim and start. */
  @Sweep('dispatch')
  staleClaims(before: Date): Promise<TaskRef[]> {
    return this.sql<TaskRef[]>(
      `SELECT workspace_id, id FROM outbound_tasks WHERE status = 'queued' AND claimed_at < $1`,
      [before],
    );
  }

  /**
   * The campaign row, locked. With `skip`, null when another dispatcher holds it; with `wait`, once that one has
   * committed.
   */
  async lockCampaign(
    workspaceId: WorkspaceId,
    id: string,
    tx: EntityManager,
    locked: 'skip' | 'wait' = 'skip',
  ): Promise<Campaign | null> {
    const query = tx
      .getRepository(Campaign)
      .createQueryBuilder('c')
      .where('c.workspace_id = :ws AND c.id = :id', { ws: workspaceId, id })
      .setLock('pessimistic_write');
    return (locked === 'skip' ? query.setOnLocked('skip_locked') : query).getOne();
  }

  /**
   * Tasks of the campaign holding a slot, by pool: claimed (`queued`) tasks and calls in progress. A message task
   * frees its slot once its message is handed over: its delivery may take hours (a phone offline) and must not hold
   * the campaign back.
   */
  async liveByPool(
    workspaceId: WorkspaceId,
    campaignId: string,
    tx: EntityManager,
  ): Promise<Map<string, number>> {
    const rows = await this.sql<{ pool_id: string; n: number }[]>(
      `SELECT pool_id, count(*)::int AS n FROM outbound_tasks
        WHERE workspace_id = $1 AND campaign_id = $2
          AND (status = 'queued' OR (status = 'in_progress' AND type = 'make_call'))
        GROUP BY pool_id`,
      [workspaceId, campaignId],
      tx,
    );
    return new Map(rows.map((r) => [r.pool_id, r.n]));
  }

  /**
   * Due pending tasks of one pool of the campaign, in the pool's order, locked (others' locks skipped). The contact's
   * zone is read per task picked, by the contact's key, not joined: a join planned on a freshly filled table (10,000
   * tasks just created, not analysed yet) scanned every contact of the workspace once per pending task. With
   * `retriedOnly` (a completed campaign), only tasks retried through `retry` are picked.
   */
  pick(
    workspaceId: WorkspaceId,
    campaignId: string,
    poolId: string,
    type: PoolType,
    limit: number,
    now: Date,
    tx: EntityManager,
    retriedOnly = false,
  ): Promise<PickedTask[]> {
    return this.sql<PickedTask[]>(
      `SELECT t.*,
              (SELECT k.timezone FROM contacts k WHERE k.id = t.contact_id AND k.workspace_id = t.workspace_id)
                AS contact_timezone
         FROM outbound_tasks t
        WHERE t.workspace_id = $1 AND t.campaign_id = $2 AND t.pool_id = $3 AND t.status = 'pending'
          AND t.scheduled_at <= $4${retriedOnly ? ' AND t.retried' : ''}
        ORDER BY ${PICK_ORDER[type]} LIMIT $5 FOR UPDATE OF t SKIP LOCKED`,
      [workspaceId, campaignId, poolId, now, limit],
      tx,
    );
  }

  /**
   * `pending` → `queued` for the tasks picked, owned by this dispatcher; by key only (no self-join: planned on a
   * table not analysed yet, it looped over every pending task of the workspace).
   */
  async markQueued(
    workspaceId: WorkspaceId,
    ids: string[],
    owner: string,
    tx: EntityManager,
  ): Promise<MovedTask[]> {
    return moved(
      await this.sql(
        `UPDATE outbound_tasks t SET status = 'queued', claimed_by = $3, claimed_at = now(), updated_at = now()
          WHERE t.id = ANY($2) AND t.workspace_id = $1 AND t.status = 'pending'
          RETURNING t.*, 'pending'::varchar AS prev`,
        [workspaceId, ids, owner],
        tx,
      ),
    );
  }

  /**
   * What a task's ended attempt must know of its campaign before another attempt is placed: its status, `end_at`,
   * and whether the task's pool is still attached; null when the campaign is gone. The row is share-locked, so a
   * cancel, an end or a detach of the campaign either commits first (and is seen here) or waits for this settlement
   * (and then finds the task not started).
   */
  async campaignForRetry(
    workspaceId: WorkspaceId,
    campaignId: string,
    poolId: string | null,
    tx: EntityManager,
  ): Promise<{ status: CampaignStatus; end_at: Date | null; attached: boolean } | null> {
    const rows = await this.sql<{ status: CampaignStatus; end_at: Date | null; attached: boolean }[]>(
      `SELECT c.status, c.end_at,
              ($3::uuid IS NULL OR EXISTS (SELECT 1 FROM outbound_campaign_pools cp
                                            WHERE cp.workspace_id = c.workspace_id AND cp.campaign_id = c.id
                                              AND cp.pool_id = $3)) AS attached
         FROM outbound_campaigns c WHERE c.workspace_id = $1 AND c.id = $2 FOR SHARE OF c`,
      [workspaceId, campaignId, poolId],
      tx,
    );
    return rows[0] ?? null;
  }

  /** The contact's address and zone. */
  async contact(
    workspaceId: WorkspaceId,
    id: string,
  ): Promise<{ phone_number: string | null; email: string | null; timezone: string | null } | null> {
    const rows = await this.sql<
      { phone_number: string | null; email: string | null; timezone: string | null }[]
    >(`SELECT phone_number, email, timezone FROM contacts WHERE workspace_id = $1 AND id = $2`, [
      workspaceId,
      id,
    ]);
    return rows[0] ?? null;
  }

  /** How the task's current call ended (and who answered it, with its voicemail retry). */
  async callOutcome(workspaceId: WorkspaceId, callId: string, tx: EntityManager): Promise<EndedCall | null> {
    const rows = await this.sql<EndedCall[]>(
      `SELECT id, status, answered_at, ended_at, created_at, answered_by,
              coalesce((voicemail ->> 'retry_on_voicemail')::boolean, false) AS retry_on_voicemail
         FROM calls WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, callId],
      tx,
    );
    return rows[0] ?? null;
  }

  /** A call placed for the task at or after `since` (found when its dispatcher died before recording it). */
  async callOfTask(
    workspaceId: WorkspaceId,
    taskId: string,
    since: Date,
    tx: EntityManager,
  ): Promise<string | null> {
    const rows = await this.sql<{ id: string }[]>(
      `SELECT id FROM calls WHERE workspace_id = $1 AND task_id = $2 AND created_at >= $3
        ORDER BY created_at DESC LIMIT 1`,
      [workspaceId, taskId, since],
      tx,
    );
    return rows[0]?.id ?? null;
  }
}
