import { Inject, Injectable } from '@nestjs/common';
import { Transaction, UnitOfWork } from '@/common/persistence/unit-of-work';
import { ActionLog } from '@/modules/logs/action-log.service';
import { OutboundEvents } from '../outbound-events';
import { RetryOutcome, TaskStatus } from '../outbound.entities';
import { TasksRepository } from '../setup/tasks.repository';
import { EndedCall, TaskRow } from '../task-row';
import { localDay, nextInWindow, nextLocalDay, retryDelayMs } from './calling-window';
import { DispatchRepository, TaskRef } from './dispatch.repository';
import { dayZoneOf, TaskRunner, zoneOf } from './task-runner';
import { OUTBOUND_TEMPLATE_SENDER, TemplateSender } from './template-sender.port';

export type { EndedCall } from '../task-row';

const DAY_MS = 24 * 3600 * 1000;

/**
 * An attempt's outcome from its call: `voicemail` when a machine answered (whatever the agent did then), `fax` for a
 * fax, else the call's status (`completed` for a person or an undetected answer).
 */
export function callOutcome(call: Pick<EndedCall, 'status' | 'answered_by'>): string {
  if (call.answered_by === 'machine') return 'voicemail';
  if (call.answered_by === 'fax') return 'fax';
  return call.status;
}

/** What happens to a task once its attempt has an outcome: done, another attempt later, or failed. */
@Injectable()
export class TaskSettlement {
  constructor(
    private readonly tasks: TasksRepository,
    private readonly dispatch: DispatchRepository,
    private readonly events: OutboundEvents,
    private readonly actions: ActionLog,
    private readonly runner: TaskRunner,
    private readonly unitOfWork: UnitOfWork,
    @Inject(OUTBOUND_TEMPLATE_SENDER) private readonly templates: TemplateSender,
  ) {}

  /**
   * The task's call has ended: its status is the attempt's outcome. `ended` is that call as its end committed, when
   * the caller has it (then it is not read again if it is still the task's current call).
   */
  async settleCall(ref: TaskRef, now: number, ended?: EndedCall | null): Promise<void> {
    await this.unitOfWork.run((tx) => this.settleCallIn(tx, ref, now, ended));
  }

  /** `settleCall` inside the caller's transaction (a call's end); false when the task was not there to settle. */
  async settleCallIn(tx: Transaction, ref: TaskRef, now: number, ended?: EndedCall | null): Promise<boolean> {
    const task = await this.tasks.lock(ref.workspace_id, ref.id, tx);
    if (task?.status !== 'in_progress' || !task.current_call_id) return false;
    const call =
      ended?.id === task.current_call_id
        ? ended
        : await this.dispatch.callOutcome(task.workspace_id, task.current_call_id, tx);
    if (!call?.ended_at) return false;
    const duration = call.ended_at.getTime() - (call.answered_at ?? call.created_at).getTime();
    // The contact's zone matters only to place a retry: read then.
    const contactZone = async () =>
      (await this.dispatch.contact(task.workspace_id, task.contact_id))?.timezone ?? null;
    await this.conclude(tx, task, callOutcome(call), now, contactZone, duration, call.retry_on_voicemail);
    return true;
  }

  /** A message task: delivered or read completes it, failed fails it, sent with nothing more for 24 h completes it. */
  async settleMessage(ref: TaskRef, now: number): Promise<void> {
    const task = await this.tasks.get(ref.workspace_id, ref.id);
    if (!task?.current_message_id) return;
    const state = await this.templates.status(ref.workspace_id, task.current_message_id);
    if (!state) return;
    const done =
      state.status === 'delivered' ||
      state.status === 'read' ||
      (state.status === 'sent' && now - state.at.getTime() >= DAY_MS);
    const failed = state.status === 'failed' || state.status === 'undelivered';
    if (!done && !failed) return;
    await this.unitOfWork.run(async (tx) => {
      const locked = await this.tasks.lock(ref.workspace_id, ref.id, tx);
      if (locked?.status !== 'in_progress') return;
      const contactZone = async () => null;
      await this.conclude(tx, locked, done ? 'completed' : state.status, now, contactZone, null);
    });
  }

  /**
   * A task left `queued` by a dispatcher that died (or, with `own`, by this dispatcher when placing it failed
   * unexpectedly): started if its call exists, else back to `pending` (the attempt was never made, so nothing is
   * lost and nothing is dialled twice).
   */
  async recover(ref: TaskRef, now: number, options: { own?: boolean } = {}): Promise<void> {
    const task = await this.tasks.get(ref.workspace_id, ref.id);
    if (task?.status !== 'queued' || !task.claimed_at) return;
    if (!options.own && (await this.runner.instance.isAlive(task.claimed_by))) return;
    const contact = await this.dispatch.contact(ref.workspace_id, task.contact_id);
    const callId = await this.unitOfWork.run((tx) =>
      this.dispatch.callOfTask(task.workspace_id, task.id, task.claimed_at!, tx),
    );
    if (callId) await this.runner.start(task, { callId }, now, dayZoneOf(task, contact?.timezone ?? null));
    else await this.runner.release(task);
  }

  private async conclude(
    tx: Transaction,
    task: TaskRow,
    outcome: string,
    now: number,
    contactZone: () => Promise<string | null>,
    durationMs: number | null,
    retryOnVoicemail = false,
  ): Promise<void> {
    await this.tasks.endAttempt(task.workspace_id, task.id, task.attempts, outcome, new Date(now), tx);
    // A voicemail is tried again by the call's voicemail policy (under the task's interval and attempts), the
    // provider's outcomes by the task's `retry_on`.
    const retried =
      outcome === 'voicemail' ? retryOnVoicemail : task.retry_on.includes(outcome as RetryOutcome);
    let next: { status: TaskStatus; patch: Record<string, unknown> };
    if (outcome === 'completed') next = { status: 'completed', patch: { completed_at: new Date(now) } };
    else if (outcome === 'canceled') next = { status: 'cancelled', patch: {} };
    else if (retried && task.attempts < task.max_attempts) {
      const under = await this.retryUnder(tx, task, now);
      const at =
        typeof under === 'string' ? await this.nextAttempt(tx, task, now, await contactZone()) : null;
      if (typeof under === 'object') next = { status: under.status, patch: { failure_reason: under.reason } };
      else if (at === null)
        next = { status: 'failed', patch: { failure_reason: 'no_window', failed_at: new Date(now) } };
      else if (under === 'hold')
        next = { status: 'on_hold', patch: { scheduled_at: new Date(at), held_status: 'scheduled' } };
      else next = { status: 'scheduled', patch: { scheduled_at: new Date(at) } };
    } else if (outcome === 'voicemail') {
      // Neither answered nor failed: the task ends on the voicemail (a message may have been left).
      next = { status: 'voicemail', patch: { completed_at: new Date(now) } };
    } else {
      const reason = retried ? 'max_attempts_reached' : outcome;
      next = { status: 'failed', patch: { failure_reason: reason, failed_at: new Date(now) } };
    }
    const row = await this.tasks.update(
      task.workspace_id,
      task.id,
      { ...next.patch, status: next.status, last_outcome: outcome },
      tx,
    );
    await this.events.tasks(tx, task.workspace_id, [{ task: row, previous: 'in_progress' }]);
    await this.actions.record(
      task.workspace_id,
      {
        type: 'task',
        name: task.title,
        status: outcome,
        channel: task.type === 'make_call' ? 'call' : 'whatsapp',
        durationMs,
        agentId: task.agent_id,
        contactId: task.contact_id,
        subjectId: task.id,
        response: {
          attempt: task.attempts,
          conversation_uuid: task.current_call_id,
          message_uuid: task.current_message_id,
          outcome,
          task_status: next.status,
        },
      },
      tx,
    );
  }

  /**
   * Whether a campaign task's retryable outcome may lead to another attempt: its campaign cancelled or deleted, or
   * its pool detached, cancels it (as those cancel the tasks not started); its campaign's `end_at` passed, or its
   * campaign completed (a task not retried since), expires it (as the end expires those not started); a paused
   * campaign holds it until `resume`. A standalone task goes on.
   */
  private async retryUnder(
    tx: Transaction,
    task: TaskRow,
    now: number,
  ): Promise<'go' | 'hold' | { status: TaskStatus; reason: string }> {
    if (!task.campaign_id) return 'go';
    const c = await this.dispatch.campaignForRetry(task.workspace_id, task.campaign_id, task.pool_id, tx);
    if (!c) return { status: 'cancelled', reason: 'campaign_deleted' };
    if (c.status === 'cancelled') return { status: 'cancelled', reason: 'campaign_cancelled' };
    if (!c.attached) return { status: 'cancelled', reason: 'pool_detached' };
    if ((c.end_at && c.end_at.getTime() <= now) || (c.status === 'completed' && !task.retried))
      return { status: 'expired', reason: 'campaign_ended' };
    return c.status === 'paused' ? 'hold' : 'go';
  }

  /**
   * After the retry interval, inside the window, and on the contact's next local day when today's
   * `max_calls_per_day` is used up (then at the window's first opening from the start of that day). The cap counts
   * in the contact's zone (see `dayZoneOf`), the window reads in its own (see `zoneOf`).
   */
  private async nextAttempt(
    tx: Transaction,
    task: TaskRow,
    now: number,
    contactZone: string | null,
  ): Promise<number | null> {
    const dayZone = dayZoneOf(task, contactZone);
    let at =
      now +
      retryDelayMs(
        { interval_minutes: task.retry_interval_minutes, strategy: task.retry_strategy },
        task.attempts,
      );
    if (task.max_per_day) {
      const used = await this.tasks.attemptsOn(task.workspace_id, task.id, localDay(now, dayZone), tx);
      if (used >= task.max_per_day) at = Math.max(at, nextLocalDay(now, dayZone));
    }
    return task.window ? nextInWindow(at, task.window, zoneOf(task, contactZone)) : at;
  }
}
