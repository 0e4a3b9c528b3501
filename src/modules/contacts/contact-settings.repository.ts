import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { ContactSettings } from './contact-settings.entity';

@Injectable()
export class ContactSettingsRepository extends WorkspaceScopedRepository<ContactSettings> {
  constructor(@InjectRepository(ContactSettings) repo: Repository<ContactSettings>) {
    super(repo);
  }

  findFor(workspaceId: WorkspaceId): Promise<ContactSettings | null> {
    return this.findOne(workspaceId, {});
  }
}
