import { Global, Module } from '@nestjs/common';
import { DatabasePoolWarmup } from './pool-warmup';
import { UnitOfWork } from './unit-of-work';

/**
 * The unit of work, once for every module: services open transactions through it, never through the DataSource.
 * The pool's kept connections are opened as the process starts.
 */
@Global()
@Module({ providers: [UnitOfWork, DatabasePoolWarmup], exports: [UnitOfWork] })
export class PersistenceModule {}
