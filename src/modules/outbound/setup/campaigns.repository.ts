import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { CallingWindow, Campaign, NOT_ENDED, Pool } from '../outbound.entities';
import { returned } from '../task-row';
import { escapeLike } from './pools.repository';

export interface CampaignFilter {
  status?: string;
  agentId?: string;
  channel?: string;
  search?: string;
  listing?: boolean;
  skip: number;
  take: number;
}

/** A member that has no task in the campaign that has not ended, with what its task needs. */
export interface MemberForTask {
  contact_id: string;
  pool_id: string;
  priority: number;
  /** Text, to keep the microseconds the pool's order relies on. */
  added_at: string;
  timezone: string | null;
}

/**
 * One attached pool of a running campaign, as its next dial is worked out from: its limit and live tasks, whether it
 * has a due (`pending`) task, and its earliest `scheduled` task with what explains its due time.
 */
export interface PoolWaitRow {
  campaign_id: string;
  pool_id: string;
  is_active: boolean;
  /** Tasks the pool may have live at once (1 for FIFO and LIFO). */
  cap: number;
  /** Its tasks holding a slot: claimed ones, and calls in progress. */
  live: number;
  has_pending: boolean;
  task_id: string | null;
  scheduled_at: Date | null;
  attempts: number | null;
  max_per_day: number | null;
  window: CallingWindow | null;
  timezone: string | null;
  contact_timezone: string | null;
  /** The contact-local day of the task's latest attempt, and how many attempts were made that day. */
  last_day: string | null;
  last_day_attempts: number | null;
}

@Injectable()
export class CampaignsRepository extends WorkspaceScopedRepository<Campaign> {
  constructor(
    @InjectRepository(Campaign) repo: Repository<Campaign>,
    @InjectRepository(Pool) private readonly poolRows: Repository<Pool>,
  ) {
    super(repo);
  }

  lock(workspaceId: WorkspaceId, id: string, tx: EntityManager): Promise<Campaign | null> {
    return this.query(workspaceId, 'c', tx)
      .andWhere('c.id = :id', { id })
      .setLock('pessimistic_write')
      .getOne();
  }

  async list(workspaceId: WorkspaceId, f: CampaignFilter): Promise<[Campaign[], number]> {
    const qb = this.query(workspaceId, 'c');
    if (f.status) qb.andWhere('c.status IN (:...st)', { st: f.status.split(',') });
    if (f.agentId) qb.andWhere('c.agent_id = :a', { a: f.agentId });
    if (f.channel) qb.andWhere('c.channel = :ch', { ch: f.channel });
    if (f.listing !== undefined) qb.andWhere('c.is_listing = :l', { l: f.listing });
    if (f.search)
      qb.andWhere('(c.name ILIKE :s OR c.description ILIKE :s)', { s: `%${escapeLike(f.search)}%` });
    return qb
      .orderBy('c.created_at', 'DESC')
      .addOrderBy('c.id', 'DESC')
      .skip(f.skip)
      .take(f.take)
      .getManyAndCount();
  }

  /** The campaign's pools in the order they were attached. */
  async pools(workspaceId: WorkspaceId, campaignId: string, tx?: EntityManager): Promise<Pool[]> {
    const rows = await this.sql<{ id: string }[]>(
      `SELECT pool_id AS id FROM outbound_campaign_pools WHERE workspace_id = $1 AND campaign_id = $2
        ORDER BY position`,
      [workspaceId, campaignId],
      tx,
    );
    if (!rows.length) return [];
    const repo = tx ? tx.getRepository(Pool) : this.poolRows;
    const pools = await repo
      .createQueryBuilder('p')
      .where('p.workspace_id = :ws AND p.id IN (:...ids)', { ws: workspaceId, ids: rows.map((r) => r.id) })
      .getMany();
    const byId = new Map(pools.map((p) => [p.id, p]));
    return rows.map((r) => byId.get(r.id)!).filter(Boolean);
  }

  async poolIdsOf(workspaceId: WorkspaceId, campaignIds: string[]): Promise<Map<string, string[]>> {
    if (!campaignIds.length) return new Map();
    const rows = await this.sql<{ campaign_id: string; pool_id: string }[]>(
      `SELECT campaign_id, pool_id FROM outbound_campaign_pools WHERE workspace_id = $1 AND campaign_id = ANY($2)
        ORDER BY position`,
      [workspaceId, campaignIds],
    );
    const out = new Map<string, string[]>();
    for (const r of rows) out.set(r.campaign_id, [...(out.get(r.campaign_id) ?? []), r.pool_id]);
    return out;
  }

  /** Attaches pools in the order given; answers those newly attached. */
  async attach(
    workspaceId: WorkspaceId,
    campaignId: string,
    poolIds: string[],
    tx: EntityManager,
  ): Promise<string[]> {
    if (!poolIds.length) return [];
    const rows = await this.sql<{ pool_id: string }[]>(
      `INSERT INTO outbound_campaign_pools (id, workspace_id, campaign_id, pool_id)
       SELECT gen_random_uuid(), $1, $2, p FROM unnest($3::uuid[]) WITH ORDINALITY AS x(p, i)
        WHERE EXISTS (SELECT 1 FROM outbound_pools WHERE workspace_id = $1 AND id = x.p)
        ORDER BY i
       ON CONFLICT (workspace_id, campaign_id, pool_id) DO NOTHING RETURNING pool_id`,
      [workspaceId, campaignId, poolIds],
      tx,
    );
    return rows.map((r) => r.pool_id);
  }

  async detach(
    workspaceId: WorkspaceId,
    campaignId: string,
    poolId: string,
    tx: EntityManager,
  ): Promise<boolean> {
    const rows = returned(
      await this.sql(
        `DELETE FROM outbound_campaign_pools WHERE workspace_id = $1 AND campaign_id = $2 AND pool_id = $3 RETURNING id`,
        [workspaceId, campaignId, poolId],
        tx,
      ),
    );
    return rows.length > 0;
  }

  /** The campaigns using the rule that have not ended (`draft`, `running`, `paused`). */
  usingRule(workspaceId: WorkspaceId, ruleId: string): Promise<Campaign[]> {
    return this.query(workspaceId, 'c')
      .andWhere('c.rule_id = :ruleId', { ruleId })
      .andWhere(`c.status IN ('draft', 'running', 'paused')`)
      .orderBy('c.created_at', 'ASC')
      .getMany();
  }

  /** Whether a `running` or `paused` campaign uses the pool (or the rule). */
  async liveUsing(workspaceId: WorkspaceId, what: { poolId?: string; ruleId?: string }, tx?: EntityManager) {
    const rows = await this.sql<{ n: number }[]>(
      what.poolId
        ? `SELECT count(*)::int AS n FROM outbound_campaigns c
             JOIN outbound_campaign_pools cp ON cp.workspace_id = c.workspace_id AND cp.campaign_id = c.id
            WHERE c.workspace_id = $1 AND cp.pool_id = $2 AND c.status IN ('running', 'paused')`
        : `SELECT count(*)::int AS n FROM outbound_campaigns
            WHERE workspace_id = $1 AND rule_id = $2 AND status IN ('running', 'paused')`,
      [workspaceId, what.poolId ?? what.ruleId],
      tx,
    );
    return rows[0].n > 0;
  }

  /**
   * The attached pools of the campaigns (in the order attached), for `next_dial_at`: one statement for a page, each
   * part read from an index: live tasks (a few, bounded by the slots; messages in progress hold none), the due
   * check as the first entry of `ix_outbound_tasks_claim` (an `EXISTS` was planned as a scan of the table), the
   * earliest scheduled task as the first of `ix_outbound_tasks_next`, and its attempts from the attempts' key.
   */
  waitingPools(workspaceId: WorkspaceId, campaignIds: string[], tx?: EntityManager): Promise<PoolWaitRow[]> {
    if (!campaignIds.length) return Promise.resolve([]);
    return this.sql<PoolWaitRow[]>(
      `SELECT cp.campaign_id, cp.pool_id, p.is_active,
              CASE WHEN p.type = 'Parallel' THEN p.max_parallel_items ELSE 1 END AS cap,
              (CASE WHEN c.channel = 'call'
                    THEN (SELECT count(*) FROM outbound_tasks t
                           WHERE t.workspace_id = $1 AND t.campaign_id = cp.campaign_id
                             AND t.status IN ('queued', 'in_progress') AND t.pool_id = cp.pool_id)
                    ELSE (SELECT count(*) FROM outbound_tasks t
                           WHERE t.workspace_id = $1 AND t.campaign_id = cp.campaign_id
                             AND t.status = 'queued' AND t.pool_id = cp.pool_id) END)::int AS live,
              (SELECT t.scheduled_at FROM outbound_tasks t
                WHERE t.campaign_id = cp.campaign_id AND t.pool_id = cp.pool_id AND t.status = 'pending'
                  AND t.workspace_id = $1
                ORDER BY t.scheduled_at LIMIT 1) IS NOT NULL AS has_pending,
              n.id AS task_id, n.scheduled_at, n.attempts, n.max_per_day, n."window", n.timezone,
              (SELECT k.timezone FROM contacts k WHERE k.workspace_id = $1 AND k.id = n.contact_id)
                AS contact_timezone,
              d.local_day::text AS last_day, d.n AS last_day_attempts
         FROM outbound_campaign_pools cp
         JOIN outbound_campaigns c ON c.workspace_id = cp.workspace_id AND c.id = cp.campaign_id
         JOIN outbound_pools p ON p.workspace_id = cp.workspace_id AND p.id = cp.pool_id
         LEFT JOIN LATERAL (
                SELECT t.id, t.scheduled_at, t.attempts, t.max_per_day, t."window", t.timezone, t.contact_id
                  FROM outbound_tasks t
                 WHERE t.campaign_id = cp.campaign_id AND t.pool_id = cp.pool_id AND t.status = 'scheduled'
                   AND t.workspace_id = $1
                 ORDER BY t.scheduled_at LIMIT 1) n ON true
         LEFT JOIN LATERAL (
                SELECT a.local_day, count(*)::int AS n FROM outbound_task_attempts a
                 WHERE a.workspace_id = $1 AND a.task_id = n.id AND n.attempts > 0
                 GROUP BY a.local_day ORDER BY a.local_day DESC LIMIT 1) d ON true
        WHERE cp.workspace_id = $1 AND cp.campaign_id = ANY($2)
        ORDER BY cp.campaign_id, cp.position`,
      [workspaceId, campaignIds],
      tx,
    );
  }

  /** How many of the campaign's tasks have not ended. */
  async liveTasks(workspaceId: WorkspaceId, campaignId: string, tx: EntityManager): Promise<number> {
    const rows = await this.sql<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM outbound_tasks WHERE workspace_id = $1 AND campaign_id = $2 AND status = ANY($3)`,
      [workspaceId, campaignId, NOT_ENDED],
      tx,
    );
    return rows[0].n;
  }

  /**
   * Members of the campaign's pools whose contact has no task in it other than cancelled ones (a member removed and
   * added again gets a new task; one already called, or failed, or expired, does not: `retry` is how it is tried
   * again), one per contact: from the pool attached first. Narrowed to some pools or contacts when given.
   */
  async membersWithoutTask(
    workspaceId: WorkspaceId,
    campaignId: string,
    tx: EntityManager,
    only: { poolIds?: string[]; contactIds?: string[] } = {},
  ): Promise<MemberForTask[]> {
    const params: unknown[] = [workspaceId, campaignId];
    let extra = '';
    if (only.poolIds) {
      params.push(only.poolIds);
      extra += ` AND m.pool_id = ANY($${params.length})`;
    }
    if (only.contactIds) {
      params.push(only.contactIds);
      extra += ` AND m.contact_id = ANY($${params.length})`;
    }
    return this.sql<MemberForTask[]>(
      `SELECT DISTINCT ON (m.contact_id) m.contact_id, m.pool_id, m.priority, m.created_at::text AS added_at,
              k.timezone
         FROM outbound_campaign_pools cp
         JOIN outbound_pool_members m ON m.workspace_id = cp.workspace_id AND m.pool_id = cp.pool_id
         JOIN contacts k ON k.workspace_id = m.workspace_id AND k.id = m.contact_id
        WHERE cp.workspace_id = $1 AND cp.campaign_id = $2${extra}
          AND NOT EXISTS (SELECT 1 FROM outbound_tasks t
                           WHERE t.workspace_id = $1 AND t.campaign_id = $2 AND t.contact_id = m.contact_id
                             AND t.status <> 'cancelled')
        ORDER BY m.contact_id, cp.position`,
      params,
      tx,
    );
  }
}
