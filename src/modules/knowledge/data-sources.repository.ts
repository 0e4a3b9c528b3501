import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { WorkspaceId, WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import { KnowledgeSource } from './data-source.entity';

@Injectable()
export class DataSourcesRepository extends WorkspaceScopedRepository<KnowledgeSource> {
  constructor(@InjectRepository(KnowledgeSource) repo: Repository<KnowledgeSource>) {
    super(repo);
  }

  /** Changes the given columns of one data source (status, progress, sync state) without reading it first. */
  async patch(
    workspaceId: WorkspaceId,
    id: string,
    values: Partial<Omit<KnowledgeSource, 'id' | 'workspaceId'>>,
    manager?: EntityManager,
  ): Promise<void> {
    await this.updateWhere(workspaceId, { id }, values as never, manager);
  }
}
