import { Injectable, Type } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { ScopedWhere, WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { AgentChildEntity } from './agent-child.entity';

/** The rows one agent holds in one table, always read in insertion order. */
export abstract class AgentChildRepository<T extends AgentChildEntity> extends WorkspaceScopedRepository<T> {
  listFor(
    workspaceId: WorkspaceId,
    agentId: string,
    scope: ScopedWhere<T>,
    manager?: EntityManager,
  ): Promise<T[]> {
    const qb = this.query(workspaceId, 'c', manager)
      .andWhere('c.agent_id = :agentId', { agentId })
      .orderBy('c.seq', 'ASC');
    for (const [key, value] of Object.entries(scope)) qb.andWhere(`c.${key} = :${key}`, { [key]: value });
    return qb.getMany();
  }

  /** The largest value of an integer column among the agent's rows (null when there are none). */
  async maxOf(
    workspaceId: WorkspaceId,
    agentId: string,
    column: 'order' | 'priority',
    scope: ScopedWhere<T>,
    manager?: EntityManager,
  ): Promise<number | null> {
    const qb = this.query(workspaceId, 'c', manager)
      .select(`MAX(c."${column}")`, 'max')
      .andWhere('c.agent_id = :agentId', { agentId });
    for (const [key, value] of Object.entries(scope)) qb.andWhere(`c.${key} = :${key}`, { [key]: value });
    const row = await qb.getRawOne<{ max: number | null }>();
    return row?.max ?? null;
  }
}

/** The repository class of one collection's entity: the scoped methods above over its own table. */
export function agentChildRepository<T extends AgentChildEntity>(
  entity: Type<T>,
): new (repo: Repository<T>) => AgentChildRepository<T> {
  @Injectable()
  class CollectionRepository extends AgentChildRepository<T> {
    constructor(@InjectRepository(entity) repo: Repository<T>) {
      super(repo);
    }
  }
  return CollectionRepository;
}
