import { Inject, Injectable, Logger } from '@nestjs/common';
import { newId } from '@/common/persistence/base.entity';
import { Transaction, UnitOfWork } from '@/common/persistence/unit-of-work';
import { isE164 } from '@/common/validation/validators';
import { BlacklistService } from '@/modules/blacklist/blacklist.service';
import { CallInstance } from '@/modules/calls/runtime/call-instance';
import { CallPlacement } from '@/modules/calls/api/call-placement.service';
import { ActionLog } from '@/modules/logs/action-log.service';
import { OutboundEvents } from '../outbound-events';
import { TasksRepository } from '../setup/tasks.repository';
import { TaskRow } from '../task-row';
import { localDay } from './calling-window';
import { DispatchRepository } from './dispatch.repository';
import { failureOf, TaskFailure } from './task-failure';
import { OUTBOUND_TEMPLATE_SENDER, TemplateSender } from './template-sender.port';

export type RunResult = 'started' | 'failed' | 'no_slot' | 'gone';

/** A claimed task found no longer `queued` (cancelled) when its call was about to be written: no call is made. */
class TaskGone extends Error {}

/** The zone a task's window is read in: the contact's when the window says so, else the task's. */
export function zoneOf(task: TaskRow, contactZone: string | null): string {
  return (task.window?.use_contact_timezone ?? true) && contactZone ? contactZone : (task.timezone ?? 'UTC');
}

/**
 * The zone a task's daily cap counts in: the contact's local day when the contact has a zone, else the task's,
 * whatever the window's `use_contact_timezone` (which governs the window only).
 */
export function dayZoneOf(task: TaskRow, contactZone: string | null): string {
  return contactZone ?? task.timezone ?? 'UTC';
}

/** Runs one claimed (`queued`) task: the do-not-call check, then its call or message, then `in_progress`. */
@Injectable()
export class TaskRunner {
  private readonly logger = new Logger(TaskRunner.name);

  constructor(
    private readonly tasks: TasksRepository,
    private readonly dispatch: DispatchRepository,
    private readonly events: OutboundEvents,
    private readonly placement: CallPlacement,
    private readonly blacklist: BlacklistService,
    private readonly actions: ActionLog,
    readonly instance: CallInstance,
    private readonly unitOfWork: UnitOfWork,
    @Inject(OUTBOUND_TEMPLATE_SENDER) private readonly templates: TemplateSender,
  ) {}

  async run(task: TaskRow, now: number): Promise<RunResult> {
    const contact = await this.dispatch.contact(task.workspace_id, task.contact_id);
    const phone = contact?.phone_number ?? null;
    if (!phone || !isE164(phone)) return this.fail(task, { reason: 'invalid_number', data: null });
    if (await this.blacklist.isBlacklisted(task.workspace_id, { phone, email: contact?.email }))
      return this.fail(task, { reason: 'blacklisted', data: null });
    const zone = dayZoneOf(task, contact?.timezone ?? null);
    try {
      if (task.type === 'send_message') {
        const data = task.task_data ?? {};
        await this.templates.send(task.workspace_id, {
          agentId: task.agent_id,
          contactId: task.contact_id,
          to: phone,
          phoneNumberId: task.phone_number_id,
          templateSettingId: (data.template_setting_uuid as string | undefined) ?? null,
          templateId: (data.template_uuid as string | undefined) ?? null,
          parameters: (data.parameters as Record<string, unknown> | undefined) ?? {},
          variables: task.variables,
          taskId: task.id,
          campaignId: task.campaign_id,
          // As a call is: the message is stored with the task's start, under the task's lock, and sent once that
          // commits, so a cancel either lands first (nothing is stored or sent) or finds the task in progress.
          link: async (tx, messageId) => {
            if ((await this.startIn(tx, task, { messageId }, now, zone)) !== 'started') throw new TaskGone();
          },
        });
        return 'started';
      }
      const call = await this.placement.placeForTask(task.workspace_id, {
        agentId: task.agent_id,
        to: phone,
        contactId: task.contact_id,
        phoneNumberId: task.phone_number_id,
        campaignId: task.campaign_id,
        taskId: task.id,
        variables: task.variables,
        metadata: task.metadata,
        voicemail: task.voicemail,
        // The call is written with the task's start, under the task's lock: a cancel either lands first (no call
        // is made, its slot goes back) or finds the task in progress (409).
        link: async (tx, callId) => {
          if ((await this.startIn(tx, task, { callId }, now, zone)) !== 'started') throw new TaskGone();
        },
      });
      if (!call) {
        await this.release(task);
        return 'no_slot';
      }
      return 'started';
    } catch (err) {
      if (err instanceof TaskGone) return 'gone';
      const failure = failureOf(err);
      if (failure.reason === 'provider_error')
        this.logger.warn({ err: (err as Error).message, taskId: task.id }, 'task attempt failed');
      return this.fail(task, failure);
    }
  }

  /**
   * `queued` → `in_progress`: the attempt counts from here, on its local day in `zone` (see `dayZoneOf`). A task
   * cancelled meanwhile stays cancelled.
   */
  async start(
    task: TaskRow,
    ref: { callId?: string; messageId?: string },
    now: number,
    zone: string,
  ): Promise<RunResult> {
    return this.unitOfWork.run((tx) => this.startIn(tx, task, ref, now, zone));
  }

  /** `start` in the caller's transaction (the one writing the task's call). */
  private async startIn(
    tx: Transaction,
    task: TaskRow,
    ref: { callId?: string; messageId?: string },
    now: number,
    zone: string,
  ): Promise<RunResult> {
    const locked = await this.tasks.lock(task.workspace_id, task.id, tx);
    if (locked?.status !== 'queued') return 'gone';
    const number = locked.attempts + 1;
    const row = await this.tasks.update(
      task.workspace_id,
      task.id,
      {
        status: 'in_progress',
        attempts: number,
        current_call_id: ref.callId ?? null,
        current_message_id: ref.messageId ?? null,
        started_at: locked.started_at ?? new Date(now),
        claimed_by: null,
      },
      tx,
    );
    await this.tasks.insertAttempt(
      task.workspace_id,
      {
        id: newId(),
        taskId: task.id,
        number,
        conversationId: ref.callId ?? null,
        messageId: ref.messageId ?? null,
        localDay: localDay(now, zone),
        startedAt: new Date(now),
      },
      tx,
    );
    await this.events.tasks(tx, task.workspace_id, [{ task: row, previous: 'queued' }]);
    return 'started';
  }

  /** `queued` → `failed` before any call or message (no retry), with its reason's code and data. */
  async fail(task: TaskRow, failure: TaskFailure): Promise<RunResult> {
    return this.unitOfWork.run(async (tx) => {
      const locked = await this.tasks.lock(task.workspace_id, task.id, tx);
      if (locked?.status !== 'queued') return 'gone';
      const row = await this.tasks.update(
        task.workspace_id,
        task.id,
        {
          status: 'failed',
          failure_reason: failure.reason.slice(0, 255),
          failure_data: failure.data,
          failed_at: new Date(),
          claimed_by: null,
          last_outcome: null,
        },
        tx,
      );
      await this.events.tasks(tx, task.workspace_id, [{ task: row, previous: 'queued' }]);
      await this.actions.record(
        task.workspace_id,
        {
          type: 'task',
          name: task.title,
          status: 'failed',
          channel: task.type === 'make_call' ? 'call' : 'whatsapp',
          agentId: task.agent_id,
          contactId: task.contact_id,
          subjectId: task.id,
          error: failure.reason,
        },
        tx,
      );
      return 'failed';
    });
  }

  /** `queued` → `pending`: no call slot was free; the attempt is not counted. */
  async release(task: TaskRow): Promise<void> {
    await this.unitOfWork.run(async (tx) => {
      const moved = await this.tasks.move(
        task.workspace_id,
        { ids: [task.id] },
        ['queued'],
        'pending',
        tx,
        'claimed_by = NULL, claimed_at = NULL',
      );
      await this.events.tasks(tx, task.workspace_id, moved);
    });
  }
}
