import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import { ContactTag } from './contact-tag.entity';

@Injectable()
export class TagsRepository extends WorkspaceScopedRepository<ContactTag> {
  constructor(@InjectRepository(ContactTag) repo: Repository<ContactTag>) {
    super(repo);
  }
}
