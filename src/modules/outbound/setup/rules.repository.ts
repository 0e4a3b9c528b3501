import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { Rule } from '../outbound.entities';
import { escapeLike } from './pools.repository';

@Injectable()
export class RulesRepository extends WorkspaceScopedRepository<Rule> {
  constructor(@InjectRepository(Rule) repo: Repository<Rule>) {
    super(repo);
  }

  /** The workspace's rules of a type and with a name containing `search` (when given), newest first. */
  list(
    workspaceId: WorkspaceId,
    f: { type?: string; search?: string; skip: number; take: number },
  ): Promise<[Rule[], number]> {
    const qb = this.query(workspaceId, 'r');
    if (f.type) qb.andWhere('r.type = :type', { type: f.type });
    if (f.search) qb.andWhere('r.name ILIKE :s', { s: `%${escapeLike(f.search)}%` });
    return qb
      .orderBy('r.created_at', 'DESC')
      .addOrderBy('r.id', 'DESC')
      .skip(f.skip)
      .take(f.take)
      .getManyAndCount();
  }
}
