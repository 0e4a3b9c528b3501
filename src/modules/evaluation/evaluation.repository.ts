import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { EvaluationRecord } from './evaluation-record.entity';

/** The filters of the evaluation list; each one left out matches every row. */
export interface EvaluationRecordFilter {
  agentId?: string;
  sessionId?: string;
  feature?: string;
  /** Created at or after. */
  from?: Date;
  /** Created before. */
  to?: Date;
}

@Injectable()
export class EvaluationRepository extends WorkspaceScopedRepository<EvaluationRecord> {
  constructor(@InjectRepository(EvaluationRecord) repo: Repository<EvaluationRecord>) {
    super(repo);
  }

  /** Stores the record unless the session already has one for this feature (a job run twice stores nothing twice). */
  async insertOnce(
    workspaceId: WorkspaceId,
    record: Omit<EvaluationRecord, 'id' | 'workspaceId' | 'createdAt' | 'updatedAt'>,
  ): Promise<void> {
    await this.insertIgnoring(workspaceId, [record as QueryDeepPartialEntity<EvaluationRecord>]);
  }

  /** One page of records, newest first, with the total. */
  page(
    workspaceId: WorkspaceId,
    filter: EvaluationRecordFilter,
    { skip, take }: { skip: number; take: number },
  ): Promise<[EvaluationRecord[], number]> {
    const qb = this.query(workspaceId, 'e');
    if (filter.agentId) qb.andWhere('e.agent_id = :agent', { agent: filter.agentId });
    if (filter.sessionId) qb.andWhere('e.session_id = :session', { session: filter.sessionId });
    if (filter.feature) qb.andWhere('e.feature = :feature', { feature: filter.feature });
    if (filter.from) qb.andWhere('e.created_at >= :from', { from: filter.from });
    if (filter.to) qb.andWhere('e.created_at < :to', { to: filter.to });
    return qb
      .orderBy('e.created_at', 'DESC')
      .addOrderBy('e.id', 'DESC')
      .skip(skip)
      .take(take)
      .getManyAndCount();
  }

  forSession(workspaceId: WorkspaceId, sessionId: string): Promise<EvaluationRecord[]> {
    return this.find(workspaceId, { where: { sessionId }, order: { createdAt: 'ASC', feature: 'ASC' } });
  }
}
