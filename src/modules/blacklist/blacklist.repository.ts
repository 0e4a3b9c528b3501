import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { BlacklistEntry } from './blacklist-entry.entity';

@Injectable()
export class BlacklistRepository extends WorkspaceScopedRepository<BlacklistEntry> {
  constructor(@InjectRepository(BlacklistEntry) repo: Repository<BlacklistEntry>) {
    super(repo);
  }

  /** Whether an entry in force (permanent or not yet expired) covers this number or email (any case). */
  async matches(
    workspaceId: WorkspaceId,
    address: { phone?: string | null; email?: string | null },
  ): Promise<boolean> {
    const rows = (await this.sql(
      `SELECT 1 FROM blacklist_entries
        WHERE workspace_id = $1
          AND (is_permanent OR expires_at > now())
          AND ((type IN ('Phone', 'Both') AND phone_number = $2)
            OR (type IN ('Email', 'Both') AND lower(email) = lower($3)))
        LIMIT 1`,
      [workspaceId, address.phone ?? null, address.email ?? null],
    )) as unknown[];
    return rows.length > 0;
  }

  /** A page of entries, newest first, with the list's filters. */
  async search(
    workspaceId: WorkspaceId,
    q: { type?: string; source?: string; search?: string },
    skip: number,
    take: number,
  ): Promise<[BlacklistEntry[], number]> {
    const qb = this.query(workspaceId, 'b');
    if (q.type) qb.andWhere('b.type = :type', { type: q.type });
    if (q.source) qb.andWhere('b.source = :source', { source: q.source });
    if (q.search)
      qb.andWhere(
        `(b.phone_number ILIKE :like ESCAPE '\\' OR b.email ILIKE :like ESCAPE '\\' OR b.reason ILIKE :like ESCAPE '\\')`,
        { like: `%${q.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` },
      );
    return qb
      .orderBy('b.created_at', 'DESC')
      .addOrderBy('b.id', 'DESC')
      .skip(skip)
      .take(take)
      .getManyAndCount();
  }
}
