import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { AppointmentRequest } from './appointment-request.entity';

/** The filters of the request list; each one left out matches every row. */
export interface AppointmentRequestFilter {
  status?: AppointmentRequest['status'];
  scheduleId?: string;
  /** Start time at or after. */
  from?: Date;
  /** Start time before. */
  before?: Date;
}

@Injectable()
export class AppointmentRequestsRepository extends WorkspaceScopedRepository<AppointmentRequest> {
  constructor(@InjectRepository(AppointmentRequest) repo: Repository<AppointmentRequest>) {
    super(repo);
  }

  /** Ordered for review: by start time, then creation; at most `limit` rows. */
  list(
    workspaceId: WorkspaceId,
    filter: AppointmentRequestFilter,
    limit: number,
  ): Promise<AppointmentRequest[]> {
    const qb = this.query(workspaceId, 'r');
    if (filter.status) qb.andWhere('r.status = :status', { status: filter.status });
    if (filter.scheduleId) qb.andWhere('r.schedule_id = :scheduleId', { scheduleId: filter.scheduleId });
    if (filter.from) qb.andWhere('r.start_time >= :from', { from: filter.from });
    if (filter.before) qb.andWhere('r.start_time < :before', { before: filter.before });
    return qb
      .orderBy('r.start_time', 'ASC')
      .addOrderBy('r.created_at', 'ASC')
      .addOrderBy('r.id', 'ASC')
      .take(limit)
      .getMany();
  }

  /** The row, locked for the rest of the transaction (state changes read and write it atomically). */
  findForUpdate(
    workspaceId: WorkspaceId,
    id: string,
    manager: EntityManager,
  ): Promise<AppointmentRequest | null> {
    return this.query(workspaceId, 'x', manager)
      .andWhere('x.id = :id', { id })
      .setLock('pessimistic_write')
      .getOne();
  }
}
