import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import { EvaluationRecord } from './evaluation-record.entity';

@Injectable()
export class EvaluationRepository extends WorkspaceScopedRepository<EvaluationRecord> {
  constructor(@InjectRepository(EvaluationRecord) repo: Repository<EvaluationRecord>) {
    super(repo);
  }

  /** Stores the record unless the session already has one for this feature (a job run twice stores nothing twice). */
  async insertOnce(
    workspaceId: string,
    record: Omit<EvaluationRecord, 'id' | 'workspaceId' | 'createdAt' | 'updatedAt'>,
  ): Promise<void> {
    await this.insertIgnoring(workspaceId, [record as QueryDeepPartialEntity<EvaluationRecord>]);
  }

  forSession(workspaceId: string, sessionId: string): Promise<EvaluationRecord[]> {
    return this.find(workspaceId, { where: { sessionId }, order: { createdAt: 'ASC', feature: 'ASC' } });
  }
}
