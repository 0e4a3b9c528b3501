import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { ApprovalStatus, ContactApproval } from './contact-approval.entity';

export type ConfidenceBand = 'high' | 'medium' | 'low';

export interface ApprovalFilter {
  status?: ApprovalStatus;
  fieldName?: string;
  fieldKey?: string;
  confidence?: ConfidenceBand;
  contactId?: string;
  conversationId?: string;
  search?: string;
  skip: number;
  take: number;
}

/** high ≥ 0.8, medium from 0.5 below 0.8, low < 0.5; a proposal without a confidence is in no band. */
const BANDS: Record<ConfidenceBand, string> = {
  high: 'a.confidence >= 0.8',
  medium: 'a.confidence >= 0.5 AND a.confidence < 0.8',
  low: 'a.confidence < 0.5',
};

export type NewApproval = Pick<
  ContactApproval,
  | 'contactId'
  | 'conversationId'
  | 'sessionId'
  | 'fieldName'
  | 'currentValue'
  | 'proposedValue'
  | 'confidence'
  | 'reason'
>;

@Injectable()
export class ApprovalsRepository extends WorkspaceScopedRepository<ContactApproval> {
  constructor(@InjectRepository(ContactApproval) repo: Repository<ContactApproval>) {
    super(repo);
  }

  /** Newest first. */
  list(workspaceId: WorkspaceId, f: ApprovalFilter): Promise<[ContactApproval[], number]> {
    const qb = this.query(workspaceId, 'a');
    if (f.status) qb.andWhere('a.status = :status', { status: f.status });
    if (f.fieldName) qb.andWhere('a.field_name = :fieldName', { fieldName: f.fieldName });
    if (f.fieldKey) qb.andWhere('a.field_name = :fieldKey', { fieldKey: `custom_fields.${f.fieldKey}` });
    if (f.confidence) qb.andWhere(BANDS[f.confidence]);
    if (f.contactId) qb.andWhere('a.contact_id = :contactId', { contactId: f.contactId });
    if (f.conversationId)
      qb.andWhere('a.conversation_id = :conversationId', { conversationId: f.conversationId });
    if (f.search) {
      const like = `%${f.search.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
      qb.andWhere(
        `(a.field_name ILIKE :like OR a.proposed_value::text ILIKE :like OR coalesce(a.current_value::text, '') ILIKE :like
          OR coalesce(a.reason, '') ILIKE :like)`,
        { like },
      );
    }
    return qb
      .orderBy('a.created_at', 'DESC')
      .addOrderBy('a.id', 'DESC')
      .skip(f.skip)
      .take(f.take)
      .getManyAndCount();
  }

  /** Stores proposals; one already made for the same session and field stays as it is. */
  async propose(workspaceId: WorkspaceId, rows: NewApproval[]): Promise<void> {
    if (!rows.length) return;
    await this.insertIgnoring(
      workspaceId,
      rows.map((r) => ({ ...r, status: 'Pending' }) as QueryDeepPartialEntity<ContactApproval>),
    );
  }

  /** Moves a `Pending` approval to its decision; answers false when it was no longer pending. */
  async decide(
    workspaceId: WorkspaceId,
    id: string,
    decision: {
      status: Exclude<ApprovalStatus, 'Pending'>;
      appliedValue?: unknown;
      rejectionReason?: string | null;
    },
    manager?: EntityManager,
  ): Promise<boolean> {
    const changed = await this.updateWhere(
      workspaceId,
      { id, status: 'Pending' },
      {
        status: decision.status,
        appliedValue: (decision.appliedValue ?? null) as never,
        rejectionReason: decision.rejectionReason ?? null,
        decidedAt: () => 'now()',
      },
      manager,
    );
    return changed > 0;
  }
}
