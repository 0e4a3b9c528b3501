import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import { Schedule } from './schedule.entity';

@Injectable()
export class SchedulesRepository extends WorkspaceScopedRepository<Schedule> {
  constructor(@InjectRepository(Schedule) repo: Repository<Schedule>) {
    super(repo);
  }
}
