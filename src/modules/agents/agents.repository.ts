import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { Agent, AgentStatus } from './agent.entity';

@Injectable()
export class AgentsRepository extends WorkspaceScopedRepository<Agent> {
  constructor(@InjectRepository(Agent) repo: Repository<Agent>) {
    super(repo);
  }

  /** Ids of one page of agents, newest first, with the total. */
  async page(
    workspaceId: WorkspaceId,
    filter: { status?: AgentStatus; search?: string },
    skip: number,
    take: number,
  ): Promise<[string[], number]> {
    const qb = this.query(workspaceId, 'a').select('a.id', 'id');
    if (filter.status) qb.andWhere('a.status = :status', { status: filter.status });
    if (filter.search) {
      const like = `%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      qb.andWhere('(a.name ILIKE :like OR a.company_name ILIKE :like OR a.role ILIKE :like)', { like });
    }
    const total = await qb.clone().getCount();
    const rows = await qb
      .orderBy('a.created_at', 'DESC')
      .addOrderBy('a.id', 'DESC')
      .offset(skip)
      .limit(take)
      .getRawMany<{ id: string }>();
    return [rows.map((r) => r.id), total];
  }

  /** Locks the agent row for the transaction (collection writes of one agent run one at a time); false if absent. */
  async lock(workspaceId: WorkspaceId, id: string, manager: EntityManager): Promise<boolean> {
    const rows = (await manager.query(
      `SELECT id FROM agents WHERE workspace_id = $1 AND id = $2 FOR UPDATE`,
      [workspaceId, id],
    )) as unknown[];
    return rows.length > 0;
  }

  async touch(workspaceId: WorkspaceId, id: string, manager: EntityManager): Promise<void> {
    await manager.query(`UPDATE agents SET updated_at = now() WHERE workspace_id = $1 AND id = $2`, [
      workspaceId,
      id,
    ]);
  }

  readyForCatalog(workspaceId: WorkspaceId): Promise<Agent[]> {
    return this.find(workspaceId, {
      where: { status: 'ready' },
      order: { name: 'ASC', createdAt: 'ASC' },
    });
  }
}
