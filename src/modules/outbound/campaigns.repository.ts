import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import { Campaign, NOT_ENDED, Pool } from './outbound.entities';
import { escapeLike } from './pools.repository';
import { returned } from './task-row';

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

@Injectable()
export class CampaignsRepository extends WorkspaceScopedRepository<Campaign> {
  constructor(
    @InjectRepository(Campaign) repo: Repository<Campaign>,
    @InjectRepository(Pool) private readonly poolRows: Repository<Pool>,
  ) {
    super(repo);
  }

  lock(workspaceId: string, id: string, tx: EntityManager): Promise<Campaign | null> {
    return this.query(workspaceId, 'c', tx)
      .andWhere('c.id = :id', { id })
      .setLock('pessimistic_write')
      .getOne();
  }

  async list(workspaceId: string, f: CampaignFilter): Promise<[Campaign[], number]> {
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
  async pools(workspaceId: string, campaignId: string, tx?: EntityManager): Promise<Pool[]> {
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

  async poolIdsOf(workspaceId: string, campaignIds: string[]): Promise<Map<string, string[]>> {
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
    workspaceId: string,
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

  async detach(workspaceId: string, campaignId: string, poolId: string, tx: EntityManager): Promise<boolean> {
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
  usingRule(workspaceId: string, ruleId: string): Promise<Campaign[]> {
    return this.query(workspaceId, 'c')
      .andWhere('c.rule_id = :ruleId', { ruleId })
      .andWhere(`c.status IN ('draft', 'running', 'paused')`)
      .orderBy('c.created_at', 'ASC')
      .getMany();
  }

  /** Whether a `running` or `paused` campaign uses the pool (or the rule). */
  async liveUsing(workspaceId: string, what: { poolId?: string; ruleId?: string }, tx?: EntityManager) {
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

  /** How many of the campaign's tasks have not ended. */
  async liveTasks(workspaceId: string, campaignId: string, tx: EntityManager): Promise<number> {
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
    workspaceId: string,
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
