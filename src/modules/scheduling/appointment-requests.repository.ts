import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import { AppointmentRequest } from './appointment-request.entity';

@Injectable()
export class AppointmentRequestsRepository extends WorkspaceScopedRepository<AppointmentRequest> {
  constructor(@InjectRepository(AppointmentRequest) repo: Repository<AppointmentRequest>) {
    super(repo);
  }

  /** The row, locked for the rest of the transaction (state changes read and write it atomically). */
  findForUpdate(workspaceId: string, id: string, manager: EntityManager): Promise<AppointmentRequest | null> {
    return this.query(workspaceId, 'x', manager)
      .andWhere('x.id = :id', { id })
      .setLock('pessimistic_write')
      .getOne();
  }
}
