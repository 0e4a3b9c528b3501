import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import { EntityManager } from 'typeorm';
import { CallEnded, CallNotFound, ConversationClosed, WrongCallStatus } from '@/common/errors/domain-errors';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { endCallSpan } from '@/common/telemetry/call-spans';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import { ConversationsService } from '@/modules/conversations/conversations.service';
import { ConversationResponse } from '@/modules/conversations/dto/responses';
import { SessionsService } from '@/modules/conversations/sessions.service';
import { OutboxService } from '@/modules/events/outbox.service';
import type { CallStatus, ProviderCallEvent, ProviderError } from '@/providers/telephony/telephony.port';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { Call } from '../call.entity';
import { CallEndListeners } from '../call-end.port';
import { CallLive } from './call-live';
import { CallSlots } from './call-slots';
import { canMove, EndReason, isEnded, providerCanMove, providerEndReason } from './call-states';
import { CallsRepository, CallViewRow } from '../calls.repository';
import { CallResponse } from '../dto/responses';

type CallJobs = JobPayloads['calls'];

export interface MoveOptions {
  endReason?: EndReason;
  error?: ProviderError | null;
  /** Runs on the locked row before the move; throws to refuse it. */
  check?: (call: Call) => void;
  /** Further changes written with the move (forwarded_to, handled_by, ...). */
  patch?: Partial<Call>;
}

export const silenceJobId = (callId: string, activityMs: number) => `silence:${callId}:${activityMs}`;

/**
 * Every status change of a call, each under the call's row lock. The ended status closes the conversation and
 * ends the session (`call_ended`, which queues the evaluation) in the same transaction, then frees the slot.
 */
@Injectable()
export class CallLifecycle {
  private readonly logger = new Logger(CallLifecycle.name);
  /** Set by the runtime: what happens once a call is answered (the agent's first message). */
  onAnswered: (call: Call) => Promise<void> = async () => undefined;

  constructor(
    private readonly calls: CallsRepository,
    private readonly conversations: ConversationsService,
    private readonly sessions: SessionsService,
    private readonly outbox: OutboxService,
    private readonly slots: CallSlots,
    private readonly live: CallLive,
    private readonly unitOfWork: UnitOfWork,
    private readonly endListeners: CallEndListeners,
    @InjectQueue(QUEUES.calls) private readonly queue: Queue<CallJobs[keyof CallJobs]>,
  ) {}

  /** A command's move (API, simulation, timer): a move the table does not allow is 409 naming the state. */
  async move(
    workspaceId: WorkspaceId,
    callId: string,
    to: CallStatus,
    options: MoveOptions = {},
  ): Promise<CallResponse> {
    const moved = await this.apply(workspaceId, callId, to, options, null);
    return moved!;
  }

  /** A provider's event: applied when it moves the call forward, else kept in the call's provider log only. */
  async providerEvent(
    workspaceId: WorkspaceId,
    callId: string,
    event: ProviderCallEvent,
  ): Promise<CallResponse | null> {
    return this.apply(
      workspaceId,
      callId,
      event.status,
      { error: event.error ?? null, endReason: providerEndReason(event.status) ?? undefined },
      event,
    );
  }

  private async apply(
    workspaceId: WorkspaceId,
    callId: string,
    to: CallStatus,
    options: MoveOptions,
    event: ProviderCallEvent | null,
  ): Promise<CallResponse | null> {
    const result = await this.unitOfWork.run(async (m) => {
      const call = await this.calls.lock(workspaceId, callId, m);
      if (!call) throw new CallNotFound(callId);
      if (event)
        await this.calls.logProviderEvent(
          workspaceId,
          callId,
          { ...event, received_at: new Date().toISOString(), applied: false },
          m,
        );
      if (isEnded(call.status)) {
        if (event) return null;
        throw new CallEnded(callId);
      }
      options.check?.(call);
      const allowed = event ? providerCanMove(call.status, to) : canMove(call.status, to);
      if (!allowed) {
        if (event) return null;
        throw new WrongCallStatus(callId, call.status);
      }
      return this.write(m, call, to, options);
    });
    if (!result) return null;
    await this.afterCommit(result.call, result.view, result.endedSession, result.followed);
    return CallResponse.of(result.view);
  }

  /** Writes a move on a locked row; exported for the creation paths that insert and move in one transaction. */
  async write(
    m: EntityManager,
    call: Call,
    to: CallStatus,
    options: MoveOptions = {},
  ): Promise<{ call: Call; view: CallViewRow; endedSession: string | null; followed: boolean[] }> {
    const ws = call.workspaceId;
    const previous = call.status;
    const now = new Date();
    Object.assign(call, options.patch ?? {});
    call.status = to;
    if (to === 'in-progress') {
      call.answeredAt = now;
      call.lastActivityAt = now;
    }
    let endedSession: string | null = null;
    let conversation;
    if (isEnded(to)) {
      call.endedAt = now;
      call.endReason = options.endReason ?? providerEndReason(to);
      call.error = options.error ?? null;
      const closed = await this.conversations
        .closeLocked(m, ws, call.id, 'call_ended')
        .catch((err: unknown) => {
          // A conversation closed by hand already: the call still ends.
          if (err instanceof ConversationClosed) return null;
          throw err;
        });
      endedSession = closed?.endedSession ?? null;
      conversation = closed?.conversation;
    }
    await this.calls.save(ws, call, m);
    const followed = isEnded(to) ? await this.withinEnd(m, call) : [];
    const view = (await this.calls.view(ws, call.id, m))!;
    conversation ??= await this.conversations.get(ws, call.id, m);
    await this.outbox.record(m, ws, [
      {
        type: 'conversation_status',
        agentId: call.agentId,
        data: {
          change: 'call_status',
          status: to,
          previous_status: previous === to ? null : previous,
          conversation: ConversationResponse.of(conversation),
          call: CallResponse.of(view),
        },
      },
    ]);
    return { call, view, endedSession, followed };
  }

  /**
   * The end listeners' work in the ending transaction, each that follows the call behind its own savepoint: answers,
   * per listener, whether it did its work.
   */
  private async withinEnd(m: EntityManager, call: Call): Promise<boolean[]> {
    const done: boolean[] = [];
    for (const listener of this.endListeners.all)
      done.push(
        listener.follows(call) &&
          (await this.unitOfWork
            .savepoint(m, () => listener.withinEnd(m, call))
            .catch((err: Error) => {
              this.logger.warn(
                { err: err.message, callId: call.id },
                'call end listener failed within the end',
              );
              return false;
            })),
      );
    return done;
  }

  /**
   * After the commit: an ended call frees its slot first, then the end listeners that follow it run beside the
   * evaluation, the timers and the live feed, so the next call waits for none of them. `followed`: per listener,
   * whether its work within the end was done.
   */
  async afterCommit(
    call: Call,
    view: CallViewRow,
    endedSession: string | null,
    followed: boolean[],
  ): Promise<void> {
    const response = CallResponse.of(view);
    if (isEnded(call.status)) {
      endCallSpan(call); // the root span of the call's trace, from its placement to now
      // A failure here leaves the slot to the reconciler, which rebuilds the sets from the call rows.
      await this.slots
        .release(call.workspaceId, call.id, call.phoneNumberId)
        .catch((err: Error) =>
          this.logger.warn({ err: err.message, callId: call.id }, 'slot release failed'),
        );
      await Promise.all([
        ...this.endListeners.all.map((listener, i) =>
          listener.follows(call)
            ? listener
                .ended(call, { withEnd: followed[i] ?? false })
                .catch((err: Error) =>
                  this.logger.warn({ err: err.message, callId: call.id }, 'ended call follow-up failed'),
                )
            : undefined,
        ),
        (async () => {
          if (endedSession) await this.sessions.queueEvaluation(call.workspaceId, endedSession);
          await Promise.all([this.dropTimer(`ring:${call.id}`), this.dropTimer(`max:${call.id}`)]);
          await this.live.publish(call.id, 'end', response);
        })(),
      ]);
      return;
    }
    await this.live.publish(call.id, 'status', response);
    if (call.status === 'ringing')
      await this.queue.add(
        'ring-timeout',
        { workspaceId: call.workspaceId, callId: call.id },
        { jobId: `ring:${call.id}`, delay: call.ringTimeoutSeconds * 1000 },
      );
    if (call.status === 'in-progress') {
      await this.dropTimer(`ring:${call.id}`);
      await this.queue.add(
        'max-duration',
        { workspaceId: call.workspaceId, callId: call.id },
        { jobId: `max:${call.id}`, delay: call.maxDurationSeconds * 1000 },
      );
      await this.scheduleSilence(call, call.answeredAt!.getTime());
      await this.onAnswered(call);
    }
  }

  /**
   * Removes a timer the call no longer needs (by its job id). One that is running (the timer that made this move) or
   * already gone stays as it is: a timer that fires late finds the call moved on and does nothing.
   */
  private async dropTimer(jobId: string): Promise<void> {
    const job = await this.queue.getJob(jobId).catch(() => null);
    if (job && (await job.isDelayed().catch(() => false))) await job.remove().catch(() => undefined);
  }

  /**
   * Arms the call's silence timer to fire the silence timeout after `activityMs`. Activity does not add timers: the
   * timer, when it fires, finds the newer activity and arms itself again from it, so a call has one timer at a time.
   */
  async scheduleSilence(
    call: Pick<Call, 'workspaceId' | 'id' | 'silenceTimeoutSeconds'>,
    activityMs: number,
  ): Promise<void> {
    await this.queue.add(
      'silence-timeout',
      { workspaceId: call.workspaceId, callId: call.id, activityMs },
      {
        jobId: silenceJobId(call.id, activityMs),
        delay: Math.max(0, activityMs + call.silenceTimeoutSeconds * 1000 - Date.now()),
      },
    );
  }
}
