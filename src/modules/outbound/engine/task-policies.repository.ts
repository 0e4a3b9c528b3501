import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { CallingWindow, Task, TaskStatus } from '../outbound.entities';
import type { EffectivePolicy } from './policy';

/**
 * Tasks of a campaign's pool ($1 workspace, $2 campaign, $3 pool) waiting for an attempt, `scheduled` or held as
 * such, whose window is not $4 yet.
 */
const WAITING_FOR_WINDOW = `t.workspace_id = $1 AND t.campaign_id = $2 AND t.pool_id = $3
  AND (t.status = 'scheduled' OR (t.status = 'on_hold' AND t.held_status = 'scheduled'))
  AND t."window" IS DISTINCT FROM $4::jsonb`;
/**
 * The zone a task's window reads in when its `use_contact_timezone` is $5 (as `zoneOf`): the contact's, read by key
 * (a join planned on a table not analysed yet scans every contact per task), else the task's.
 */
const WINDOW_ZONE = `CASE WHEN $5::boolean THEN coalesce(NULLIF((SELECT k.timezone FROM contacts k
    WHERE k.id = t.contact_id AND k.workspace_id = t.workspace_id), ''), t.timezone, 'UTC')
  ELSE coalesce(t.timezone, 'UTC') END`;

/** A campaign's policy on its tasks: the merged window and retry, and the due times a new window moves. */
@Injectable()
export class TaskPoliciesRepository extends WorkspaceScopedRepository<Task> {
  constructor(@InjectRepository(Task) repo: Repository<Task>) {
    super(repo);
  }

  /** Writes a campaign's merged policy on its tasks of one pool that are in `statuses`. */
  async applyPolicy(
    workspaceId: WorkspaceId,
    campaignId: string,
    poolId: string,
    p: EffectivePolicy,
    statuses: TaskStatus[],
    tx: EntityManager,
  ): Promise<void> {
    await this.sql(
      `UPDATE outbound_tasks SET "window" = $5, max_attempts = GREATEST($6, attempts), max_per_day = $7,
              retry_interval_minutes = $8, retry_strategy = $9, retry_on = $10, updated_at = now()
        WHERE workspace_id = $1 AND campaign_id = $2 AND pool_id = $3 AND status = ANY($4)`,
      [
        workspaceId,
        campaignId,
        poolId,
        statuses,
        JSON.stringify(p.window),
        p.retry.max_attempts,
        p.retry.max_per_day,
        p.retry.interval_minutes,
        p.retry.strategy,
        JSON.stringify(p.retry.on),
      ],
      tx,
    );
  }

  /**
   * The tasks of one pool of the campaign waiting for an attempt (`scheduled`, or held as such) whose window is not
   * `window` yet, with the zone their window reads in under it (see `zoneOf`): those waiting for their first attempt
   * once per zone (`id` null: they are due at the same instant), those waiting for a retry one by one.
   */
  waitingForWindow(
    workspaceId: WorkspaceId,
    campaignId: string,
    poolId: string,
    window: CallingWindow,
    tx: EntityManager,
  ): Promise<{ id: string | null; zone: string; scheduled_at: Date | null }[]> {
    return this.sql(
      `WITH w AS (SELECT t.id, t.attempts, t.scheduled_at, ${WINDOW_ZONE} AS zone FROM outbound_tasks t
                   WHERE ${WAITING_FOR_WINDOW})
       SELECT DISTINCT NULL::uuid AS id, zone, NULL::timestamptz AS scheduled_at FROM w WHERE attempts = 0
       UNION ALL
       SELECT id, zone, scheduled_at FROM w WHERE attempts > 0`,
      [workspaceId, campaignId, poolId, JSON.stringify(window), window.use_contact_timezone],
      tx,
    );
  }

  /**
   * New due times for the tasks `waitingForWindow` answered (run before the window is written on them): those
   * waiting for their first attempt by zone, the others by key.
   */
  async rescheduleForWindow(
    workspaceId: WorkspaceId,
    campaignId: string,
    poolId: string,
    window: CallingWindow,
    byZone: { zone: string; at: Date }[],
    byId: { id: string; at: Date }[],
    tx: EntityManager,
  ): Promise<void> {
    const params = [workspaceId, campaignId, poolId, JSON.stringify(window), window.use_contact_timezone];
    if (byZone.length)
      await this.sql(
        `UPDATE outbound_tasks t SET scheduled_at = d.at, updated_at = now()
           FROM unnest($6::text[], $7::timestamptz[]) AS d(zone, at)
          WHERE ${WAITING_FOR_WINDOW} AND t.attempts = 0 AND ${WINDOW_ZONE} = d.zone`,
        [...params, byZone.map((z) => z.zone), byZone.map((z) => z.at)],
        tx,
      );
    if (byId.length)
      await this.sql(
        `UPDATE outbound_tasks t SET scheduled_at = d.at, updated_at = now()
           FROM unnest($5::uuid[], $6::timestamptz[]) AS d(id, at)
          WHERE ${WAITING_FOR_WINDOW} AND t.attempts > 0 AND t.id = d.id`,
        [...params.slice(0, 4), byId.map((r) => r.id), byId.map((r) => r.at)],
        tx,
      );
  }
}
