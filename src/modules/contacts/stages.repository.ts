import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import { PipelineStage } from './pipeline-stage.entity';

@Injectable()
export class StagesRepository extends WorkspaceScopedRepository<PipelineStage> {
  constructor(@InjectRepository(PipelineStage) repo: Repository<PipelineStage>) {
    super(repo);
  }
}
