import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { Appointment } from './appointment.entity';

export interface AppointmentFilter {
  scheduleId?: string;
  contactId?: string;
  status?: string;
  from?: Date;
  before?: Date;
  skip: number;
  take: number;
}

@Injectable()
export class AppointmentsRepository extends WorkspaceScopedRepository<Appointment> {
  constructor(@InjectRepository(Appointment) repo: Repository<Appointment>) {
    super(repo);
  }

  list(workspaceId: WorkspaceId, f: AppointmentFilter): Promise<[Appointment[], number]> {
    const qb = this.query(workspaceId, 'a');
    if (f.scheduleId) qb.andWhere('a.schedule_id = :scheduleId', { scheduleId: f.scheduleId });
    if (f.contactId) qb.andWhere('a.contact_id = :contactId', { contactId: f.contactId });
    if (f.status) qb.andWhere('a.status = :status', { status: f.status });
    if (f.from) qb.andWhere('a.start_time >= :from', { from: f.from });
    if (f.before) qb.andWhere('a.start_time < :before', { before: f.before });
    return qb
      .orderBy('a.start_time', 'ASC', 'NULLS LAST')
      .addOrderBy('a.created_at', 'ASC')
      .addOrderBy('a.id', 'ASC')
      .skip(f.skip)
      .take(f.take)
      .getManyAndCount();
  }
}
