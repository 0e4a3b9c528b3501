import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import { ContactField } from './contact-field.entity';

@Injectable()
export class FieldsRepository extends WorkspaceScopedRepository<ContactField> {
  constructor(@InjectRepository(ContactField) repo: Repository<ContactField>) {
    super(repo);
  }
}
