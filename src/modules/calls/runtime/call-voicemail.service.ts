import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { CallNotFound } from '@/common/errors/domain-errors';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import { outcomeOf, TakeTurnOptions, TurnProgress, TurnRuntime } from '@/modules/runtime/public';
import { OutboxService } from '@/modules/events/outbox.service';
import type { MachineDetectionReport } from '@/providers/telephony/telephony.port';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { CallControl } from '../api/call-control.service';
import { CallLive } from './call-live';
import { CallRuntime } from './call-runtime.service';
import type { CallTurnResponse, LoadedCall } from './call-runtime.types';
import { isEnded } from './call-states';
import { conversationOf } from './call-context';
import { CallsRepository } from '../calls.repository';
import { CallResponse } from '../dto/responses';
import { answeredByOf, AnsweredBy, isMachine, MachineDetection } from './voicemail';
import { matchVoicemailGreeting } from './voicemail-greeting';

/** A detection for a call not answered yet (its answer still on the way): the job tries again shortly. */
export class NotAnsweredYet extends Error {
  constructor() {
    super('The call is not answered yet');
    this.name = 'NotAnsweredYet';
  }
}

export const VOICEMAIL_REACHED = 'The call reached a voicemail';

/**
 * Who answered an outbound call: the provider's answering-machine detection (Twilio's asynchronous AMD callback,
 * the sandbox by number) or, on the call's first customer turn, its words matching a voicemail or screening
 * greeting. The first machine (or fax) decided wins; `call_voicemail` is written with it; then, as the call's policy
 * says, the call's owner stops the agent, leaves the message and hangs up (a live action, like `say` and `hangup`).
 */
@Injectable()
export class CallVoicemail implements OnModuleInit {
  private readonly logger = new Logger(CallVoicemail.name);

  constructor(
    private readonly calls: CallsRepository,
    private readonly runtime: CallRuntime,
    private readonly control: CallControl,
    private readonly turns: TurnRuntime,
    private readonly live: CallLive,
    private readonly outbox: OutboxService,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  onModuleInit(): void {
    this.runtime.screen = (read, text, live, emit) => this.screen(read, text, live, emit);
  }

  /** The provider's detection (a `machine-detection` job); throws NotAnsweredYet while the call still rings. */
  async report(workspaceId: WorkspaceId, callId: string, report: MachineDetectionReport): Promise<void> {
    await this.decide(
      workspaceId,
      callId,
      answeredByOf(report.answeredBy),
      {
        source: report.source,
        result: report.answeredBy,
        language: null,
        duration_ms: report.durationMs,
        detected_at: new Date().toISOString(),
      },
      { kind: 'machine_detection', source: report.source, ...(report.detail ?? {}) },
    );
  }

  /**
   * The first customer turn of an outbound call with detection on, when no machine was decided yet: a voicemail or
   * screening greeting is stored as the customer's words (no rule runs, the model does not answer) and decides a
   * machine. Anything else (or a later turn) answers null and the turn goes on as usual.
   */
  async screen(
    read: LoadedCall,
    text: string,
    live?: TakeTurnOptions,
    emit?: (event: TurnProgress) => void,
  ): Promise<CallTurnResponse | null> {
    const call = read.call;
    if (call.direction !== 'Outbound' || !call.voicemail?.detection || isMachine(call.answeredBy))
      return null;
    if (read.history?.some((m) => m.sender === 'customer')) return null;
    const heard = matchVoicemailGreeting(text);
    if (!heard) return null;
    const events = this.turns.takeTurn(
      {
        workspaceId: call.workspaceId,
        conversationId: call.id,
        content: text,
        muted: true,
        context: await this.runtime.context(read),
        conversation: conversationOf(call),
        history: read.history,
      },
      live,
    );
    const turn = await outcomeOf(events, emit);
    await this.live.publish(call.id, 'transcript', turn.message);
    await this.decide(call.workspaceId, call.id, 'machine', {
      source: 'transcript',
      result: heard.phrase,
      language: heard.language,
      duration_ms: null,
      detected_at: new Date().toISOString(),
    });
    const view = await this.calls.view(call.workspaceId, call.id);
    return { ...turn, reply_unavailable_reason: VOICEMAIL_REACHED, call: CallResponse.of(view!) };
  }

  /**
   * Records who answered under the call's lock, then acts. A call that has ended keeps a provider's report in its
   * provider log only; a machine or fax already decided stays (the report is logged, not applied).
   */
  private async decide(
    workspaceId: WorkspaceId,
    callId: string,
    answeredBy: AnsweredBy | null,
    detection: MachineDetection,
    logged?: Record<string, unknown>,
  ): Promise<void> {
    const decided = await this.unitOfWork.run(async (m) => {
      const call = await this.calls.lock(workspaceId, callId, m);
      if (!call) throw new CallNotFound(callId);
      const log = (applied: boolean) =>
        logged
          ? this.calls.logProviderEvent(
              workspaceId,
              callId,
              { ...logged, received_at: detection.detected_at, applied },
              m,
            )
          : Promise.resolve();
      if (!isEnded(call.status) && call.status !== 'in-progress') throw new NotAnsweredYet();
      if (isEnded(call.status) || !answeredBy || isMachine(call.answeredBy)) {
        await log(false);
        return null;
      }
      call.answeredBy = answeredBy;
      call.machineDetection = detection;
      await this.calls.save(workspaceId, call, m);
      await log(true);
      const view = (await this.calls.view(workspaceId, callId, m))!;
      const policy = call.voicemail;
      if (answeredBy === 'machine')
        await this.outbox.record(m, workspaceId, [
          {
            type: 'call_voicemail',
            agentId: call.agentId,
            data: {
              answered_by: answeredBy,
              action: policy?.detection ? policy.action : 'continue',
              machine_detection: detection,
              call: CallResponse.of(view),
            },
          },
        ]);
      return { call, view };
    });
    if (!decided) return;
    const { call, view } = decided;
    await this.live.publish(callId, 'status', CallResponse.of(view));
    const policy = call.voicemail;
    if (!policy?.detection) return;
    if (call.answeredBy === 'fax' || (call.answeredBy === 'machine' && policy.action !== 'continue'))
      await this.control
        .dispatch(workspaceId, callId, {
          action: 'voicemail',
          answered_by: call.answeredBy,
          ...(call.answeredBy === 'machine' && policy.action === 'leave_message' && policy.message
            ? { message: policy.message }
            : {}),
        })
        .catch((err: Error) =>
          // The call ended or was handed to a person meanwhile: nothing is left to do.
          this.logger.debug({ callId, err: err.message }, 'voicemail action not performed'),
        );
  }
}
