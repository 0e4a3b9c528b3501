import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

/** The transaction a unit of work hands to repository methods; services only pass it on. */
export type Transaction = EntityManager;

/**
 * The one way a service groups repository calls into a transaction, so services never hold the DataSource: every
 * statement still goes through a repository, which takes the transaction as its last argument.
 */
@Injectable()
export class UnitOfWork {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  run<R>(work: (tx: Transaction) => Promise<R>): Promise<R> {
    return this.dataSource.transaction(work);
  }

  /**
   * Runs `work` inside the transaction `tx` behind a savepoint: when it throws, its writes alone are undone (and its
   * row locks released) and the error is thrown on; the rest of the transaction goes on. One savepoint at a time per
   * transaction (the name is fixed).
   */
  async savepoint<R>(tx: Transaction, work: () => Promise<R>): Promise<R> {
    await tx.query('SAVEPOINT unit_of_work');
    try {
      const result = await work();
      await tx.query('RELEASE SAVEPOINT unit_of_work');
      return result;
    } catch (err) {
      await tx.query('ROLLBACK TO SAVEPOINT unit_of_work');
      throw err;
    }
  }
}
