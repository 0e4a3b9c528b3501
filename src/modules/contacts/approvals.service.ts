import { Injectable, Logger } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { Page, pageOf, skipTake } from '@/common/http/pagination';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { AnalyzersService } from './analyzers.service';
import { ApprovalsRepository, NewApproval } from './approvals.repository';
import { DEFAULT_UPDATE_BEHAVIOR, UpdateBehavior } from './contact-analyzer.entity';
import { ContactApproval } from './contact-approval.entity';
import { ContactFieldType } from './contact-field.entity';
import { ContactsService } from './contacts.service';
import {
  ApprovalResponse,
  ApproveApprovalDto,
  ListApprovalsQuery,
  RejectApprovalDto,
} from './dto/approval.dto';

/** One value the model extracted from a session for a contact field. */
export interface ExtractedValue {
  /** `email`, `custom_fields.<key>`, or `pipeline_stage` (the value a stage uuid). */
  field: string;
  value: string | number | boolean;
  confidence: number | null;
  reason: string | null;
}

export interface MemorizedSession {
  contactId: string;
  conversationId: string | null;
  sessionId: string;
}

/** What memorize did with the values of one session. */
export interface MemorizeOutcome {
  written: Record<string, unknown>;
  proposed: string[];
}

const isEmpty = (v: unknown) => v === undefined || v === null || v === '';
/** Scalars compare as text (a custom number 36 and the model's "36" are the same value). */
const text = (v: unknown) =>
  typeof v === 'object' ? JSON.stringify(v) : String(v as string | number | boolean);
const same = (a: unknown, b: unknown) => !isEmpty(a) && text(a) === text(b);

/** The field name of a contact's pipeline stage in memorize's answers and in approvals; its value is a stage uuid. */
export const PIPELINE_STAGE_FIELD = 'pipeline_stage';
const STAGE_KEY = 'pipeline_stage_uuid';

/**
 * `email` → `{email: v}`; `custom_fields.plan` → `{custom_fields: {plan: v}}`; `pipeline_stage` →
 * `{pipeline_stage_uuid: v}`.
 */
function patchOf(field: string, value: unknown): Record<string, unknown> {
  if (field === PIPELINE_STAGE_FIELD) return { [STAGE_KEY]: value };
  const [head, sub] = field.split('.', 2);
  return sub ? { [head]: { [sub]: value } } : { [head]: value };
}

/** The model answers text: a custom number or boolean field gets the value of its type when the text is one. */
function coerce(
  value: string | number | boolean,
  type: ContactFieldType | undefined,
): string | number | boolean {
  if (typeof value !== 'string') return value;
  const t = value.trim();
  if (type === 'number' && /^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  if (type === 'boolean' && /^(true|yes)$/i.test(t)) return true;
  if (type === 'boolean' && /^(false|no)$/i.test(t)) return false;
  return value;
}

function valueIn(contact: Record<string, unknown>, field: string): unknown {
  if (field === PIPELINE_STAGE_FIELD) return contact[STAGE_KEY];
  const [head, sub] = field.split('.', 2);
  return sub ? (contact[head] as Record<string, unknown> | undefined)?.[sub] : contact[head];
}

/**
 * Contact approvals: values memorize proposes after a session, which a person approves (the value is written
 * through the `PUT /contacts/{uuid}` checks) or rejects. Also where memorize's values meet the analyzers.
 */
@Injectable()
export class ApprovalsService {
  private readonly logger = new Logger(ApprovalsService.name);

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly approvals: ApprovalsRepository,
    private readonly contacts: ContactsService,
    private readonly analyzers: AnalyzersService,
  ) {}

  toResponse(a: ContactApproval): ApprovalResponse {
    return {
      uuid: a.id,
      contact_uuid: a.contactId,
      conversation_uuid: a.conversationId,
      session_uuid: a.sessionId,
      field_name: a.fieldName,
      current_value: a.currentValue ?? null,
      proposed_value: a.proposedValue,
      confidence: a.confidence,
      reason: a.reason,
      status: a.status,
      decided_at: a.decidedAt?.toISOString() ?? null,
      applied_value: a.appliedValue ?? null,
      rejection_reason: a.rejectionReason,
      created_at: a.createdAt.toISOString(),
    };
  }

  async list(workspaceId: WorkspaceId, q: ListApprovalsQuery): Promise<Page<ApprovalResponse>> {
    const [rows, total] = await this.approvals.list(workspaceId, {
      status: q.status,
      fieldName: q.field_name,
      fieldKey: q.field_key,
      confidence: q.confidence,
      contactId: q.contact_uuid?.toLowerCase(),
      conversationId: q.conversation_uuid?.toLowerCase(),
      search: q.search?.trim() || undefined,
      ...skipTake(q),
    });
    return pageOf(
      rows.map((a) => this.toResponse(a)),
      total,
      q,
    );
  }

  async get(workspaceId: WorkspaceId, id: string): Promise<ApprovalResponse> {
    return this.toResponse(await this.find(workspaceId, id));
  }

  /**
   * Writes the proposed value (or `value`) through the contact checks and marks the approval `Approved`, in one
   * transaction: a value the checks refuse is 422 on `value` and nothing changes (a `pipeline_stage` approval
   * whose stage was deleted meanwhile among them); an approval no longer `Pending` is 409.
   */
  async approve(workspaceId: WorkspaceId, id: string, dto: ApproveApprovalDto): Promise<ApprovalResponse> {
    const approval = await this.find(workspaceId, id);
    if (approval.status !== 'Pending') throw this.decided(approval);
    const value = dto.value === undefined ? approval.proposedValue : dto.value;
    if (!['string', 'number', 'boolean'].includes(typeof value))
      throw AppException.invalid('value', 'value must be a string, a number or a boolean');
    await this.unitOfWork.run(async (tx) => {
      if (!(await this.approvals.decide(workspaceId, id, { status: 'Approved', appliedValue: value }, tx)))
        throw this.decided();
      try {
        await this.contacts.update(workspaceId, approval.contactId, patchOf(approval.fieldName, value), tx);
      } catch (err) {
        if (err instanceof AppException && err.status === 422)
          throw AppException.invalid('value', `value: ${err.message}`, err.code);
        throw err;
      }
    });
    return this.get(workspaceId, id);
  }

  async reject(workspaceId: WorkspaceId, id: string, dto: RejectApprovalDto): Promise<ApprovalResponse> {
    const approval = await this.find(workspaceId, id);
    if (approval.status !== 'Pending') throw this.decided(approval);
    const reason = dto.reason?.trim() || null;
    if (!(await this.approvals.decide(workspaceId, id, { status: 'Rejected', rejectionReason: reason })))
      throw this.decided();
    return this.get(workspaceId, id);
  }

  /**
   * Memorize's values for one session, each through its field's analyzer: `dont_update` skips;
   * `update_if_empty` writes into an empty field only; `automatic_update` writes; `manual_approval` proposes;
   * `ask_approval_if_existing` writes into an empty field and proposes over another stored value. A value equal
   * to the stored one does nothing; a value the contact checks refuse is skipped (logged). A proposal already
   * made for the session and field is not made again. `pipeline_stage` moves the contact into the stage named by
   * its value through that stage's analyzer ("empty" is a contact without a stage); a stage not of the workspace
   * (deleted meanwhile, or never its own) is skipped.
   */
  async fromMemorize(
    workspaceId: WorkspaceId,
    session: MemorizedSession,
    values: ExtractedValue[],
  ): Promise<MemorizeOutcome> {
    const outcome: MemorizeOutcome = { written: {}, proposed: [] };
    const contact = await this.contacts.find(workspaceId, session.contactId);
    if (!contact || !values.length) return outcome;
    const fields = this.contacts.toResponse(contact) as unknown as Record<string, unknown>;
    const wantsStage = values.some((v) => v.field === PIPELINE_STAGE_FIELD);
    const [analyzers, stages] = await Promise.all([
      this.analyzers.forFields(
        workspaceId,
        values.map((v) => v.field).filter((f) => f !== PIPELINE_STAGE_FIELD),
      ),
      wantsStage ? this.analyzers.forStages(workspaceId) : [],
    ]);
    const proposals: NewApproval[] = [];
    for (const extracted of values) {
      let v: ExtractedValue;
      let behavior: UpdateBehavior;
      if (extracted.field === PIPELINE_STAGE_FIELD) {
        // A stage moves by the analyzer of the stage moved into; a uuid naming no stage of the workspace is ignored.
        const id = typeof extracted.value === 'string' ? extracted.value.trim().toLowerCase() : '';
        const stage = stages.find((s) => s.stageId === id);
        if (!stage) {
          this.logger.warn(
            { workspaceId, contactId: session.contactId, field: extracted.field },
            'memorized stage is no pipeline stage of the workspace',
          );
          continue;
        }
        v = { ...extracted, value: stage.stageId };
        behavior = stage.updateBehavior;
      } else {
        const analyzer = analyzers.get(extracted.field);
        v = { ...extracted, value: coerce(extracted.value, analyzer?.valueType) };
        behavior = analyzer?.updateBehavior ?? DEFAULT_UPDATE_BEHAVIOR;
      }
      const current = valueIn(fields, v.field);
      if (behavior === 'dont_update' || same(current, v.value)) continue;
      const empty = isEmpty(current);
      const write =
        behavior === 'automatic_update' ||
        (empty && (behavior === 'update_if_empty' || behavior === 'ask_approval_if_existing'));
      const propose = behavior === 'manual_approval' || (!empty && behavior === 'ask_approval_if_existing');
      const patch = patchOf(v.field, v.value);
      try {
        if (write) {
          await this.contacts.update(workspaceId, session.contactId, patch);
          outcome.written[v.field] = v.value;
        } else if (propose) {
          await this.contacts.checkUpdate(workspaceId, session.contactId, patch);
          proposals.push({
            contactId: session.contactId,
            conversationId: session.conversationId,
            sessionId: session.sessionId,
            fieldName: v.field,
            currentValue: empty ? null : current,
            proposedValue: v.value,
            confidence: v.confidence,
            reason: v.reason,
          });
          outcome.proposed.push(v.field);
        }
      } catch (err) {
        if (!(err instanceof AppException)) throw err;
        this.logger.warn(
          { workspaceId, contactId: session.contactId, field: err.options.field ?? v.field, code: err.code },
          'memorized value refused',
        );
      }
    }
    await this.approvals.propose(workspaceId, proposals);
    return outcome;
  }

  private async find(workspaceId: WorkspaceId, id: string): Promise<ContactApproval> {
    const approval = await this.approvals.findById(workspaceId, id);
    if (!approval) throw AppException.notFound('Contact approval');
    return approval;
  }

  /** 409: the approval was decided already (`a`), or meanwhile by a concurrent request. */
  private decided(a?: ContactApproval): AppException {
    return AppException.conflict(
      `The approval is ${a ? a.status : 'already decided'}; only a Pending approval can be approved or rejected`,
    );
  }
}
