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
}
