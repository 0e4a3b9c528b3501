import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { Transcription, TranscriptionStatus } from './transcription.entity';

export interface TranscriptionFilter {
  status?: TranscriptionStatus;
  referenceId?: string;
  contactId?: string;
  from?: Date;
  to?: Date;
  skip: number;
  take: number;
}

@Injectable()
export class TranscriptionsRepository extends WorkspaceScopedRepository<Transcription> {
  constructor(@InjectRepository(Transcription) repo: Repository<Transcription>) {
    super(repo);
  }

  /** Newest first. */
  list(workspaceId: WorkspaceId, f: TranscriptionFilter): Promise<[Transcription[], number]> {
    const qb = this.query(workspaceId, 't');
    if (f.status) qb.andWhere('t.status = :status', { status: f.status });
    if (f.referenceId) qb.andWhere('t.reference_id = :ref', { ref: f.referenceId });
    if (f.contactId) qb.andWhere('t.contact_id = :contact', { contact: f.contactId });
    if (f.from) qb.andWhere('t.created_at >= :from', { from: f.from });
    if (f.to) qb.andWhere('t.created_at <= :to', { to: f.to });
    return qb
      .orderBy('t.created_at', 'DESC')
      .addOrderBy('t.id', 'DESC')
      .skip(f.skip)
      .take(f.take)
      .getManyAndCount();
  }

  /** The row locked for the rest of the transaction (state moves). */
  lock(workspaceId: WorkspaceId, id: string, manager: EntityManager): Promise<Transcription | null> {
    return this.query(workspaceId, 't', manager)
      .andWhere('t.id = :id', { id })
      .setLock('pessimistic_write')
      .getOne();
  }
}
