import {
  DeepPartial,
  EntityManager,
  FindOptionsOrder,
  FindOptionsRelations,
  FindOptionsWhere,
  Repository,
  SelectQueryBuilder,
} from 'typeorm';
import { newId } from './base.entity';
import { WorkspaceOwnedEntity } from './workspace-owned.entity';

/** A condition on an entity that never names the workspace: the repository adds it. */
export type ScopedWhere<T> = Omit<FindOptionsWhere<T>, 'workspaceId'>;

export interface ScopedFindOptions<T> {
  where?: ScopedWhere<T> | ScopedWhere<T>[];
  order?: FindOptionsOrder<T>;
  relations?: FindOptionsRelations<T>;
  skip?: number;
  take?: number;
}

/** The tenant every scoped query is filtered on. */
export type WorkspaceId = string;

/**
 * The only way modules reach their tables. Every method takes the workspace id first and adds it to
 * every query, so a query without a tenant does not compile.
 */
export abstract class WorkspaceScopedRepository<T extends WorkspaceOwnedEntity> {
  protected constructor(protected readonly repo: Repository<T>) {}

  /** The same repository bound to a transaction's manager. */
  protected inTransaction(manager: EntityManager): Repository<T> {
    return manager.getRepository(this.repo.target) as Repository<T>;
  }

  protected scope(
    workspaceId: WorkspaceId,
    where?: ScopedWhere<T> | ScopedWhere<T>[],
  ): FindOptionsWhere<T>[] {
    const list = where === undefined ? [{}] : Array.isArray(where) ? where : [where];
    return list.map((w) => ({ ...w, workspaceId }) as FindOptionsWhere<T>);
  }

  find(workspaceId: WorkspaceId, options: ScopedFindOptions<T> = {}, manager?: EntityManager): Promise<T[]> {
    const repo = manager ? this.inTransaction(manager) : this.repo;
    return repo.find({ ...options, where: this.scope(workspaceId, options.where) });
  }

  findAndCount(workspaceId: WorkspaceId, options: ScopedFindOptions<T> = {}): Promise<[T[], number]> {
    return this.repo.findAndCount({ ...options, where: this.scope(workspaceId, options.where) });
  }

  findOne(
    workspaceId: WorkspaceId,
    where: ScopedWhere<T> | ScopedWhere<T>[],
    options: Omit<ScopedFindOptions<T>, 'where'> = {},
    manager?: EntityManager,
  ): Promise<T | null> {
    const repo = manager ? this.inTransaction(manager) : this.repo;
    return repo.findOne({ ...options, where: this.scope(workspaceId, where) });
  }

  findById(workspaceId: WorkspaceId, id: string, manager?: EntityManager): Promise<T | null> {
    return this.findOne(workspaceId, { id } as ScopedWhere<T>, {}, manager);
  }

  count(workspaceId: WorkspaceId, where?: ScopedWhere<T> | ScopedWhere<T>[]): Promise<number> {
    return this.repo.count({ where: this.scope(workspaceId, where) });
  }

  exists(workspaceId: WorkspaceId, where: ScopedWhere<T> | ScopedWhere<T>[]): Promise<boolean> {
    return this.repo.exists({ where: this.scope(workspaceId, where) });
  }

  /** Builds an entity owned by the workspace (with its id) without saving it. */
  build(workspaceId: WorkspaceId, data: DeepPartial<Omit<T, 'workspaceId'>>): T {
    const entity = this.repo.create({ ...data, workspaceId } as DeepPartial<T>);
    entity.id ??= newId();
    return entity;
  }

  /** Saves entities that were built or read through this repository (their workspace is already set). */
  save<E extends T | T[]>(workspaceId: WorkspaceId, entity: E, manager?: EntityManager): Promise<E> {
    const list = (Array.isArray(entity) ? entity : [entity]) as T[];
    if (list.some((e) => e.workspaceId !== workspaceId))
      throw new Error('entity belongs to another workspace');
    const repo = manager ? this.inTransaction(manager) : this.repo;
    return repo.save(entity as DeepPartial<T>) as unknown as Promise<E>;
  }

  async delete(workspaceId: WorkspaceId, where: ScopedWhere<T>, manager?: EntityManager): Promise<number> {
    const repo = manager ? this.inTransaction(manager) : this.repo;
    const result = await repo.delete({ ...where, workspaceId });
    return result.affected ?? 0;
  }

  /** A query builder that already filters on the workspace. */
  query(workspaceId: WorkspaceId, alias: string, manager?: EntityManager): SelectQueryBuilder<T> {
    const repo = manager ? this.inTransaction(manager) : this.repo;
    return repo.createQueryBuilder(alias).where(`${alias}.workspace_id = :workspaceId`, { workspaceId });
  }
}
