import {
  DeepPartial,
  EntityManager,
  FindOptionsOrder,
  FindOptionsRelations,
  FindOptionsWhere,
  QueryFailedError,
  Raw,
  Repository,
  SelectQueryBuilder,
} from 'typeorm';
import type { Pool, PoolClient, QueryResult } from 'pg';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { newId } from './base.entity';
import { statementName } from './statement-names';
import { runAsOwnedSave } from './sweep';
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

/**
 * New rows of one table, for a statement that inserts them beside other writes: the columns and values come from
 * the entity metadata, as TypeORM would insert them.
 */
export interface NewRows {
  table: string;
  columns: string[];
  /** One list per row, in the order of `columns`; undefined stands for the column's default. */
  rows: unknown[][];
}

/** `INSERT INTO <table> (<columns>) VALUES ...` of `rows`, its values appended to `params`. */
export function insertSql(rows: NewRows, params: unknown[]): string {
  const values = rows.rows.map(
    (row) =>
      `(${row
        .map((v) => {
          if (v === undefined) return 'DEFAULT';
          params.push(v);
          return `$${params.length}`;
        })
        .join(', ')})`,
  );
  return `INSERT INTO ${rows.table} (${rows.columns.join(', ')}) VALUES ${values.join(', ')}`;
}

/** The tenant every scoped query is filtered on (`common/auth/workspace-id`). */
export type { WorkspaceId };

/**
 * A query builder already filtered on the workspace. `where` adds a condition (TypeORM's would replace the tenant
 * filter) and `orWhere` is refused (it would widen the query past the workspace).
 */
export type ScopedQueryBuilder<T extends WorkspaceOwnedEntity> = Omit<SelectQueryBuilder<T>, 'orWhere'>;

function scopedBuilder<T extends WorkspaceOwnedEntity>(qb: SelectQueryBuilder<T>): ScopedQueryBuilder<T> {
  qb.where = qb.andWhere.bind(qb);
  qb.orWhere = () => {
    throw new Error('orWhere would drop the workspace filter: use andWhere with brackets');
  };
  return qb;
}

/**
 * The only way modules reach their tables. Every method takes the workspace id first and adds it to
 * every query, so a query without a tenant does not compile.
 */
export abstract class WorkspaceScopedRepository<T extends WorkspaceOwnedEntity> {
  // Private: subclasses reach rows only through the scoped methods below, or raw SQL the test suite checks.
  readonly #repo: Repository<T>;

  protected constructor(repo: Repository<T>) {
    this.#repo = repo;
  }

  private get repo(): Repository<T> {
    return this.#repo;
  }

  /** The same repository bound to a transaction's manager. */
  private inTransaction(manager: EntityManager): Repository<T> {
    return manager.getRepository(this.#repo.target) as Repository<T>;
  }

  /**
   * Hand-written SQL, in the transaction when one is given. It must filter on `workspace_id` (or belong to a method
   * marked `@Sweep`): the test suite fails on any statement that does not.
   */
  protected async sql<R = unknown>(
    text: string,
    params: unknown[] = [],
    manager?: EntityManager,
  ): Promise<R> {
    const name = statementName(text);
    if (!name) return (manager ?? this.#repo.manager).query(text, params) as Promise<R>;
    // A repeated statement goes as a named prepared statement (statement-names.ts), answered as TypeORM's `query`
    // would (UPDATE and DELETE with their row count).
    const raw = await this.runNamed(name, text, params, manager);
    return (raw.command === 'UPDATE' || raw.command === 'DELETE' ? [raw.rows, raw.rowCount] : raw.rows) as R;
  }

  /** Hand-written SQL as a named prepared statement on the pool, for statements that run on every request. */
  protected async prepared<R extends object>(name: string, text: string, values: unknown[]): Promise<R[]> {
    return (await this.runNamed<R>(name, text, values)).rows;
  }

  /**
   * A named prepared statement, on the transaction's connection when there is one, failing as TypeORM's `query`
   * would. The client is taken with `await` (not `pool.query`, whose callback runs in the async context of whoever
   * released a connection), so the statement runs in its caller's context.
   */
  private async runNamed<R extends object = Record<string, unknown>>(
    name: string,
    text: string,
    values: unknown[],
    manager?: EntityManager,
  ): Promise<QueryResult<R>> {
    const runner = manager?.queryRunner as PostgresQueryRunner | undefined;
    const client = runner
      ? ((await runner.connect()) as PoolClient)
      : await ((this.#repo.manager.connection.driver as PostgresDriver).master as Pool).connect();
    try {
      return await client.query<R>({ name, text, values });
    } catch (err) {
      throw new QueryFailedError(text, values, err as Error);
    } finally {
      if (!runner) client.release();
    }
  }

  /** Changes columns of the workspace's rows that match; answers how many. */
  protected async updateWhere(
    workspaceId: WorkspaceId,
    where: ScopedWhere<T>,
    values: QueryDeepPartialEntity<Omit<T, 'id' | 'workspaceId'>>,
    manager?: EntityManager,
  ): Promise<number> {
    const repo = manager ? this.inTransaction(manager) : this.#repo;
    const result = await repo.update({ ...where, workspaceId } as FindOptionsWhere<T>, values as never);
    return result.affected ?? 0;
  }

  /** Inserts rows of the workspace, skipping those that hit a unique constraint. */
  protected async insertIgnoring(
    workspaceId: WorkspaceId,
    rows: Array<QueryDeepPartialEntity<Omit<T, 'workspaceId'>>>,
    manager?: EntityManager,
  ): Promise<void> {
    const repo = manager ? this.inTransaction(manager) : this.#repo;
    const values = rows.map((r) => ({ id: newId(), ...r, workspaceId }) as QueryDeepPartialEntity<T>);
    await repo.createQueryBuilder().insert().values(values).orIgnore().execute();
  }

  protected scope(
    workspaceId: WorkspaceId,
    where?: ScopedWhere<T> | ScopedWhere<T>[],
  ): FindOptionsWhere<T>[] {
    const list = where === undefined ? [{}] : Array.isArray(where) ? where : [where];
    // No alternatives match no row; TypeORM would read an empty list as no condition at all, tenant included.
    if (list.length === 0) return [{ workspaceId, id: Raw(() => 'FALSE') } as FindOptionsWhere<T>];
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
    // TypeORM finds and updates saved rows by primary key alone; each entity's workspace was checked above.
    return runAsOwnedSave(() => repo.save(entity as DeepPartial<T>)) as unknown as Promise<E>;
  }

  /**
   * Inserts new entities built through this repository in one `INSERT` (no read ahead, as `save` does to tell an
   * insert from an update).
   */
  async insertNew(workspaceId: WorkspaceId, entities: T[], manager?: EntityManager): Promise<void> {
    if (entities.length === 0) return;
    if (entities.some((e) => e.workspaceId !== workspaceId))
      throw new Error('entity belongs to another workspace');
    const repo = manager ? this.inTransaction(manager) : this.repo;
    await repo
      .createQueryBuilder()
      .insert()
      .values(entities as QueryDeepPartialEntity<T>[])
      .updateEntity(false)
      .execute();
  }

  /**
   * New entities built through this repository as rows for a statement of several writes (see `insertSql`): every
   * insertable column of the entity metadata, each value prepared as TypeORM prepares it (JSON for jsonb columns).
   */
  newRows(workspaceId: WorkspaceId, entities: T[]): NewRows {
    if (entities.some((e) => e.workspaceId !== workspaceId))
      throw new Error('entity belongs to another workspace');
    const { metadata, manager } = this.#repo;
    const driver = manager.connection.driver;
    const columns = metadata.columns.filter((c) => c.isInsert && !c.isVirtualProperty);
    return {
      table: driver.escape(metadata.tableName),
      columns: columns.map((c) => driver.escape(c.databaseName)),
      rows: entities.map((e) => columns.map((c) => driver.preparePersistentValue(c.getEntityValue(e), c))),
    };
  }

  async delete(workspaceId: WorkspaceId, where: ScopedWhere<T>, manager?: EntityManager): Promise<number> {
    const repo = manager ? this.inTransaction(manager) : this.repo;
    const result = await repo.delete({ ...where, workspaceId });
    return result.affected ?? 0;
  }

  /** A query builder that already filters on the workspace, and keeps doing so (see ScopedQueryBuilder). */
  query(workspaceId: WorkspaceId, alias: string, manager?: EntityManager): ScopedQueryBuilder<T> {
    const repo = manager ? this.inTransaction(manager) : this.repo;
    return scopedBuilder(
      repo.createQueryBuilder(alias).where(`${alias}.workspace_id = :workspaceId`, { workspaceId }),
    );
  }
}
