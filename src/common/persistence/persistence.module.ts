import { Global, Module } from '@nestjs/common';
import { UnitOfWork } from './unit-of-work';

/** The unit of work, once for every module: services open transactions through it, never through the DataSource. */
@Global()
@Module({ providers: [UnitOfWork], exports: [UnitOfWork] })
export class PersistenceModule {}
