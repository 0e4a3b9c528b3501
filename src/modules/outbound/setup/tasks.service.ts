import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { Page, pageOf, skipTake } from '@/common/http/pagination';
import { newId } from '@/common/persistence/base.entity';
import { isPgError, PG_UNIQUE_VIOLATION } from '@/common/persistence/pg-errors';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import { checkMetadata, checkVariables } from '@/modules/calls/runtime/call-context';
import { checkVoicemail } from '@/modules/agents/voicemail-policy';
import { ContactsService } from '@/modules/contacts/contacts.service';
import { ListContactsQuery } from '@/modules/contacts/dto/contact.dto';
import { AgentContextReader, agentInBody } from '@/modules/conversations/agent-context';
import { PhoneNumbersService } from '@/modules/phone-numbers/phone-numbers.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { OutboundClock } from '../engine/outbound-clock';
import { OutboundEvents } from '../outbound-events';
import { TaskStatus } from '../outbound.entities';
import { TaskRow } from '../task-row';
import { CampaignsRepository } from './campaigns.repository';
import {
  CreateTaskDto,
  TaskDetailResponse,
  TaskListQuery,
  TaskResponse,
  TASK_TYPES,
  UpdateTaskDto,
} from './dto/task.dto';
import { TasksRepository } from './tasks.repository';
import { taskView } from './views';

export type TaskAction = 'cancel' | 'hold' | 'release' | 'retry';

const MOVES: Record<TaskAction, { from: TaskStatus[]; to: TaskStatus | 'held'; set: string }> = {
  cancel: { from: ['scheduled', 'pending', 'on_hold', 'queued'], to: 'cancelled', set: 'held_status = NULL' },
  hold: { from: ['scheduled', 'pending'], to: 'on_hold', set: 'held_status = o.prev' },
  release: { from: ['on_hold'], to: 'held', set: 'held_status = NULL' },
  retry: {
    from: ['failed', 'expired', 'voicemail'],
    to: 'scheduled',
    set: `max_attempts = GREATEST(t.max_attempts, t.attempts + 1), retried = true, failure_reason = NULL,
          failure_data = NULL, failed_at = NULL,
          expires_at = CASE WHEN o.prev = 'expired' THEN NULL ELSE t.expires_at END`,
  },
};
const EDITABLE: TaskStatus[] = ['scheduled', 'pending', 'on_hold'];

/** Tasks (§11.4): one scheduled call or WhatsApp template, standalone or a campaign's. */
@Injectable()
export class TasksService {
  constructor(
    private readonly tasks: TasksRepository,
    private readonly campaigns: CampaignsRepository,
    private readonly events: OutboundEvents,
    private readonly agents: AgentContextReader,
    private readonly contacts: ContactsService,
    private readonly numbers: PhoneNumbersService,
    private readonly clock: OutboundClock,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  async list(workspaceId: WorkspaceId, q: TaskListQuery): Promise<Page<TaskResponse>> {
    const [rows, total] = await this.tasks.list(workspaceId, {
      type: q.type,
      status: q.status,
      contactId: q.contact_uuid,
      campaignId: q.campaign_uuid,
      poolId: q.pool_uuid,
      agentId: q.agent_uuid,
      priority: q.priority,
      scheduledFrom: q.scheduled_from ? new Date(q.scheduled_from) : undefined,
      scheduledTo: q.scheduled_to ? new Date(q.scheduled_to) : undefined,
      ...skipTake(q),
    });
    return pageOf(rows.map(taskView), total, q);
  }

  async get(workspaceId: WorkspaceId, id: string): Promise<TaskDetailResponse> {
    const task = await this.tasks.get(workspaceId, id);
    if (!task) throw AppException.notFound('Task');
    const attempts = await this.tasks.attempts(workspaceId, id);
    return {
      ...taskView(task),
      attempts: attempts.map((a) => ({
        number: a.number,
        conversation_uuid: a.conversationId,
        message_uuid: a.messageId,
        outcome: a.outcome,
        started_at: a.startedAt.toISOString(),
        ended_at: a.endedAt?.toISOString() ?? null,
      })),
    };
  }

  async create(workspaceId: WorkspaceId, dto: CreateTaskDto): Promise<TaskResponse> {
    if (!(TASK_TYPES as readonly string[]).includes(dto.type))
      throw AppException.invalid('type', `type must be one of ${TASK_TYPES.join(', ')}`);
    if (!!dto.contact_uuid === !!dto.contact)
      throw AppException.invalid(
        'contact_uuid',
        'Send exactly one of contact_uuid and contact',
        'VALIDATION_ERROR',
      );
    const now = await this.clock.now();
    const scheduledAt = new Date(dto.scheduled_at);
    if (scheduledAt.getTime() <= now)
      throw AppException.invalid('scheduled_at', 'scheduled_at must be in the future', 'VALIDATION_ERROR');
    const expiresAt = dto.expires_at ? new Date(dto.expires_at) : null;
    if (expiresAt && expiresAt <= scheduledAt)
      throw AppException.invalid('expires_at', 'expires_at must be after scheduled_at', 'VALIDATION_ERROR');
    const taskData = dto.type === 'send_message' ? checkTaskData(dto.task_data) : (dto.task_data ?? null);
    const variables = checkVariables(dto.variables);
    const metadata = checkMetadata(dto.metadata);
    const voicemail = checkVoicemail(dto.voicemail, 'voicemail');
    const agent = await agentInBody(this.agents, workspaceId, dto.agent_uuid);
    if (dto.phone_number_uuid && !(await this.numbers.find(workspaceId, dto.phone_number_uuid)))
      throw AppException.invalid(
        'phone_number_uuid',
        'phone_number_uuid names no phone number of this workspace',
        'VALIDATION_ERROR',
      );
    const contactId = await this.contactOf(workspaceId, dto);
    return this.unitOfWork.run(async (tx) => {
      const [task] = await this.tasks.insertMany(
        workspaceId,
        [
          {
            id: newId(),
            title: dto.title,
            type: dto.type as TaskRow['type'],
            status: 'scheduled',
            held_status: null,
            agent_id: agent.agent_uuid,
            contact_id: contactId,
            campaign_id: null,
            pool_id: null,
            phone_number_id: dto.phone_number_uuid ?? null,
            scheduled_at: scheduledAt,
            expires_at: expiresAt,
            timezone: dto.timezone ?? null,
            priority: dto.priority ?? 5,
            member_added_at: new Date(),
            max_attempts: dto.type === 'send_message' ? 1 : (dto.max_attempts ?? 3),
            max_per_day: null,
            retry_interval_minutes: dto.retry_interval_minutes ?? 60,
            retry_strategy: dto.retry_strategy ?? 'fixed',
            retry_on: ['busy', 'no-answer'],
            window: null,
            task_data: taskData,
            variables,
            metadata,
            voicemail,
          },
        ],
        tx,
      );
      await this.events.tasks(tx, workspaceId, [{ task, previous: null }]);
      return taskView(task);
    });
  }

  async update(workspaceId: WorkspaceId, id: string, dto: UpdateTaskDto): Promise<TaskResponse> {
    return this.unitOfWork.run(async (tx) => {
      const task = await this.tasks.lock(workspaceId, id, tx);
      if (!task) throw AppException.notFound('Task');
      if (!EDITABLE.includes(task.status)) throw AppException.conflict(`Task is ${task.status}`);
      const patch: Record<string, unknown> = {};
      if (dto.title !== undefined) patch.title = dto.title;
      if (dto.scheduled_at !== undefined) patch.scheduled_at = new Date(dto.scheduled_at);
      if (dto.expires_at !== undefined) patch.expires_at = dto.expires_at ? new Date(dto.expires_at) : null;
      if (dto.priority !== undefined) patch.priority = dto.priority;
      if (dto.variables !== undefined) patch.variables = checkVariables(dto.variables);
      if (dto.metadata !== undefined) patch.metadata = checkMetadata(dto.metadata);
      // A new due time in the future waits again; the dispatcher moves it back to pending when due. A task held
      // while pending is released to scheduled likewise.
      if (patch.scheduled_at && task.status === 'pending') patch.status = 'scheduled';
      if (patch.scheduled_at && task.status === 'on_hold' && task.held_status === 'pending')
        patch.held_status = 'scheduled';
      const row = Object.keys(patch).length ? await this.tasks.update(workspaceId, id, patch, tx) : task;
      if (row.status !== task.status)
        await this.events.tasks(tx, workspaceId, [{ task: row, previous: task.status }]);
      return taskView(row);
    });
  }

  async apply(workspaceId: WorkspaceId, id: string, action: TaskAction): Promise<TaskResponse> {
    const now = new Date(await this.clock.now());
    return this.unitOfWork.run(async (tx) => {
      const task = await this.tasks.lock(workspaceId, id, tx);
      if (!task) throw AppException.notFound('Task');
      const move = MOVES[action];
      if (!move.from.includes(task.status)) throw AppException.conflict(`Task is ${task.status}`);
      // A retried task dials under its campaign (a completed one too); a cancelled or deleted campaign dials nothing.
      if (action === 'retry' && task.campaign_id) {
        const status =
          (await this.campaigns.findById(workspaceId, task.campaign_id, tx))?.status ?? 'deleted';
        if (status === 'cancelled' || status === 'deleted')
          throw AppException.conflict(`The task's campaign is ${status}`);
      }
      // A retried campaign task must not be a second live task of its contact there (added again meanwhile).
      const [moved] = await this.tasks
        .move(workspaceId, { ids: [id] }, move.from, move.to, tx, move.set)
        .catch((err: unknown) => {
          if (isPgError(err, PG_UNIQUE_VIOLATION, 'uq_outbound_tasks_campaign_contact'))
            throw AppException.conflict('The contact has another task in this campaign that has not ended');
          throw err;
        });
      const row =
        action === 'retry' ? await this.tasks.update(workspaceId, id, { scheduled_at: now }, tx) : moved.task;
      await this.events.tasks(tx, workspaceId, [{ task: row, previous: moved.previous }]);
      return taskView(row);
    });
  }

  /** The contact named, or the one found by phone then email, else a new one. */
  private async contactOf(workspaceId: WorkspaceId, dto: CreateTaskDto): Promise<string> {
    if (dto.contact_uuid) {
      if (!(await this.contacts.find(workspaceId, dto.contact_uuid)))
        throw AppException.invalid(
          'contact_uuid',
          'contact_uuid names no contact of this workspace',
          'VALIDATION_ERROR',
        );
      return dto.contact_uuid;
    }
    const c = dto.contact!;
    const byPhone = await this.contacts.findByPhone(workspaceId, c.phone_number);
    if (byPhone) return byPhone.id;
    if (c.email) {
      const query = Object.assign(new ListContactsQuery(), { search: c.email, per_page: 100 });
      const found = await this.contacts.list(workspaceId, query);
      const match = found.items.find((x) => x.email?.toLowerCase() === c.email!.toLowerCase());
      if (match) return match.uuid;
    }
    const created = await this.contacts.create(workspaceId, {
      name: c.name ?? c.phone_number,
      phone_number: c.phone_number,
      ...(c.email ? { email: c.email } : {}),
    });
    return created.id;
  }
}

/** `send_message` carries which template to send: `{message_type: "whatsapp_template", template_uuid | ...}`. */
function checkTaskData(data: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!data)
    throw AppException.invalid('task_data', 'task_data is required for send_message', 'VALIDATION_ERROR');
  if (data.message_type !== 'whatsapp_template')
    throw AppException.invalid('task_data.message_type', 'task_data.message_type must be whatsapp_template');
  const ref = data.template_setting_uuid ?? data.template_uuid;
  if (typeof ref !== 'string' || !/^[0-9a-f-]{36}$/i.test(ref))
    throw AppException.invalid(
      'task_data.template_uuid',
      'task_data needs template_uuid or template_setting_uuid (a UUID)',
      'VALIDATION_ERROR',
    );
  if (data.parameters !== undefined && (typeof data.parameters !== 'object' || data.parameters === null))
    throw AppException.invalid('task_data.parameters', 'task_data.parameters must be an object');
  return data;
}
