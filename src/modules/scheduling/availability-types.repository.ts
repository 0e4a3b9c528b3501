import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import { AvailabilityType } from './availability-type.entity';

@Injectable()
export class AvailabilityTypesRepository extends WorkspaceScopedRepository<AvailabilityType> {
  constructor(@InjectRepository(AvailabilityType) repo: Repository<AvailabilityType>) {
    super(repo);
  }
}
