import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import { contactIdsMatchingSql } from '@/modules/contacts/public';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { Campaign, Pool, PoolType } from '../outbound.entities';
import { returned } from '../task-row';

export interface PoolFilter {
  search?: string;
  type?: PoolType;
  isActive?: boolean;
  skip: number;
  take: number;
}

export interface MemberRow {
  contact_id: string;
  name: string | null;
  surname: string | null;
  phone_number: string | null;
  email: string | null;
  priority: number;
  notes: string | null;
  added_at: Date;
  task_status: string | null;
  attempts: number | null;
  failure_reason: string | null;
  scheduled_at: Date | null;
  started_at: Date | null;
  completed_at: Date | null;
  failed_at: Date | null;
}

/** Members are ordered by when they were added (microseconds, so a batch keeps its order). */
const MEMBER_ORDER: Record<PoolType, string> = {
  FIFO: 'm.created_at ASC, m.id ASC',
  LIFO: 'm.created_at DESC, m.id DESC',
  Parallel: 'm.priority DESC, m.created_at ASC, m.id ASC',
};

/** The member statuses the source product shows, from the latest task (see `memberStatusSql`). */
const TASK_TO_MEMBER = `CASE
  WHEN t.status IS NULL OR t.status = 'pending' THEN 'Pending'
  WHEN t.status = 'scheduled' AND t.attempts > 0 THEN 'Retrying'
  WHEN t.status IN ('scheduled', 'on_hold') THEN 'Scheduled'
  WHEN t.status = 'queued' THEN 'Processing'
  WHEN t.status = 'in_progress' THEN 'In_Call'
  WHEN t.status = 'completed' THEN 'Completed'
  WHEN t.status = 'voicemail' THEN 'Voicemail'
  WHEN t.status = 'cancelled' OR t.failure_reason = 'blacklisted' THEN 'Skipped'
  ELSE 'Failed' END`;

@Injectable()
export class PoolsRepository extends WorkspaceScopedRepository<Pool> {
  constructor(@InjectRepository(Pool) repo: Repository<Pool>) {
    super(repo);
  }

  lock(workspaceId: WorkspaceId, id: string, tx: EntityManager): Promise<Pool | null> {
    return this.query(workspaceId, 'p', tx)
      .andWhere('p.id = :id', { id })
      .setLock('pessimistic_write')
      .getOne();
  }

  async list(workspaceId: WorkspaceId, f: PoolFilter): Promise<[Pool[], number]> {
    const qb = this.query(workspaceId, 'p');
    if (f.search)
      qb.andWhere(`(p.name ILIKE :s OR p.description ILIKE :s)`, { s: `%${escapeLike(f.search)}%` });
    if (f.type) qb.andWhere('p.type = :type', { type: f.type });
    if (f.isActive !== undefined) qb.andWhere('p.is_active = :a', { a: f.isActive });
    return qb
      .orderBy('p.created_at', 'DESC')
      .addOrderBy('p.id', 'DESC')
      .skip(f.skip)
      .take(f.take)
      .getManyAndCount();
  }

  async memberCounts(workspaceId: WorkspaceId, poolIds: string[]): Promise<Map<string, number>> {
    if (!poolIds.length) return new Map();
    const rows = await this.sql<{ pool_id: string; n: number }[]>(
      `SELECT pool_id, count(*)::int AS n FROM outbound_pool_members
        WHERE workspace_id = $1 AND pool_id = ANY($2) GROUP BY pool_id`,
      [workspaceId, poolIds],
    );
    return new Map(rows.map((r) => [r.pool_id, r.n]));
  }

  /** The contacts of the workspace among `ids`. */
  async knownContacts(workspaceId: WorkspaceId, ids: string[], tx: EntityManager): Promise<Set<string>> {
    const rows = await this.sql<{ id: string }[]>(
      `SELECT id FROM contacts WHERE workspace_id = $1 AND id = ANY($2)`,
      [workspaceId, ids],
      tx,
    );
    return new Set(rows.map((r) => r.id));
  }

  /** Adds members in the order given (present ones are left alone); answers the contacts added. */
  async addMembers(
    workspaceId: WorkspaceId,
    poolId: string,
    members: { contactId: string; priority: number }[],
    tx: EntityManager,
  ): Promise<string[]> {
    if (!members.length) return [];
    const rows = await this.sql<{ contact_id: string }[]>(
      `INSERT INTO outbound_pool_members (id, workspace_id, pool_id, contact_id, priority, created_at)
       SELECT gen_random_uuid(), $1, $2, x.c, x.p, clock_timestamp() + x.i * interval '1 microsecond'
         FROM unnest($3::uuid[], $4::int[]) WITH ORDINALITY AS x(c, p, i)
         JOIN contacts k ON k.workspace_id = $1 AND k.id = x.c
        ORDER BY x.i
       ON CONFLICT (workspace_id, pool_id, contact_id) DO NOTHING
       RETURNING contact_id`,
      [workspaceId, poolId, members.map((m) => m.contactId), members.map((m) => m.priority)],
      tx,
    );
    return rows.map((r) => r.contact_id);
  }

  async removeMember(
    workspaceId: WorkspaceId,
    poolId: string,
    contactId: string,
    tx: EntityManager,
  ): Promise<boolean> {
    const rows = returned(
      await this.sql(
        `DELETE FROM outbound_pool_members WHERE workspace_id = $1 AND pool_id = $2 AND contact_id = $3 RETURNING id`,
        [workspaceId, poolId, contactId],
        tx,
      ),
    );
    return rows.length > 0;
  }

  /** Copies members (priority kept, order kept) into another pool; answers how many. */
  async copyMembers(workspaceId: WorkspaceId, from: string, to: string, tx: EntityManager): Promise<number> {
    const rows = await this.sql<unknown[]>(
      `INSERT INTO outbound_pool_members (id, workspace_id, pool_id, contact_id, priority, notes, created_at)
       SELECT gen_random_uuid(), workspace_id, $3, contact_id, priority, notes,
              clock_timestamp() + row_number() OVER (ORDER BY created_at, id) * interval '1 microsecond'
         FROM outbound_pool_members WHERE workspace_id = $1 AND pool_id = $2
       RETURNING id`,
      [workspaceId, from, to],
      tx,
    );
    return rows.length;
  }

  /** `running` and `paused` campaigns the pool is attached to, share-locked so a start or stop waits for us. */
  async liveCampaigns(workspaceId: WorkspaceId, poolId: string, tx: EntityManager): Promise<Campaign[]> {
    const rows = await this.sql<{ id: string }[]>(
      `SELECT c.id FROM outbound_campaigns c
         JOIN outbound_campaign_pools cp ON cp.workspace_id = c.workspace_id AND cp.campaign_id = c.id
        WHERE c.workspace_id = $1 AND cp.pool_id = $2
        ORDER BY c.created_at FOR SHARE OF c`,
      [workspaceId, poolId],
      tx,
    );
    if (!rows.length) return [];
    const campaigns = await tx
      .getRepository(Campaign)
      .createQueryBuilder('c')
      .where('c.workspace_id = :ws AND c.id IN (:...ids)', { ws: workspaceId, ids: rows.map((r) => r.id) })
      .orderBy('c.created_at', 'ASC')
      .getMany();
    return campaigns.filter((c) => c.status === 'running' || c.status === 'paused');
  }

  /**
   * The members with their latest task's state, in the pool's dispatch order. Built to stay fast at 100,000 members
   * (`npm run bench:outbound-reads`): without a status filter the page of members is picked first (on the members'
   * order index) and only its rows read their latest task; the search uses the contacts' trigram index; a status
   * filter counts over one index-only walk of the pool's latest tasks (`ix_outbound_tasks_member`), merged with the
   * members by contact.
   */
  async members(
    workspaceId: WorkspaceId,
    pool: Pool,
    f: { search?: string; status?: string; skip: number; take: number },
  ): Promise<[MemberRow[], number]> {
    const params: unknown[] = [workspaceId, pool.id];
    const where: string[] = ['m.workspace_id = $1', 'm.pool_id = $2'];
    if (f.search) {
      params.push(`%${escapeLike(f.search)}%`);
      where.push(`m.contact_id IN (${contactIdsMatchingSql('$1', `$${params.length}`)})`);
    }
    const order = MEMBER_ORDER[pool.type];
    const latest = (columns: string) => `LEFT JOIN LATERAL (
        SELECT ${columns} FROM outbound_tasks t
         WHERE t.workspace_id = m.workspace_id AND t.pool_id = m.pool_id AND t.contact_id = m.contact_id
         ORDER BY t.created_at DESC, t.id DESC LIMIT 1) t ON true`;
    const select = (from: string) =>
      `SELECT m.contact_id, k.name, k.surname, k.phone_number, k.email, m.priority, m.notes, m.created_at AS added_at,
              ${TASK_TO_MEMBER} AS task_status, t.attempts, t.failure_reason, t.scheduled_at, t.started_at,
              t.completed_at, t.failed_at
         FROM ${from}
         JOIN contacts k ON k.workspace_id = m.workspace_id AND k.id = m.contact_id
         ${latest('status, attempts, failure_reason, scheduled_at, started_at, completed_at, failed_at')}`;
    if (!f.status) {
      const [total, rows] = await Promise.all([
        this.sql<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM outbound_pool_members m WHERE ${where.join(' AND ')}`,
          params,
        ),
        this.sql<MemberRow[]>(
          `${select(`(SELECT * FROM outbound_pool_members m WHERE ${where.join(' AND ')}
                       ORDER BY ${order} LIMIT ${f.take} OFFSET ${f.skip}) m`)}
           ORDER BY ${order}`,
          params,
        ),
      ]);
      return [rows, total[0].n];
    }
    params.push(f.status);
    const status = `$${params.length}`;
    const [total, rows] = await Promise.all([
      this.sql<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM outbound_pool_members m
           LEFT JOIN (SELECT DISTINCT ON (contact_id) contact_id, status, attempts, failure_reason
                        FROM outbound_tasks WHERE workspace_id = $1 AND pool_id = $2
                       ORDER BY contact_id, created_at DESC, id DESC) t ON t.contact_id = m.contact_id
          WHERE ${where.join(' AND ')} AND (${TASK_TO_MEMBER}) = ${status}`,
        params,
      ),
      this.sql<MemberRow[]>(
        `${select(`(SELECT m.* FROM outbound_pool_members m ${latest('status, attempts, failure_reason')}
                     WHERE ${where.join(' AND ')} AND (${TASK_TO_MEMBER}) = ${status}
                     ORDER BY ${order} LIMIT ${f.take} OFFSET ${f.skip}) m`)}
         ORDER BY ${order}`,
        params,
      ),
    ]);
    return [rows, total[0].n];
  }
}

export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}
