import { Injectable, Logger } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { CallEnded, WrongCallStatus } from '@/common/errors/domain-errors';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import { ConversationMessagesService } from '@/modules/conversations/conversation-messages.service';
import { MessageResponse } from '@/modules/conversations/dto/responses';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { Call } from '../call.entity';
import { voiceText } from '../runtime/call-context';
import { CallKeypad } from '../runtime/call-keypad.service';
import { CallLive } from '../runtime/call-live';
import { CallRuntime } from '../runtime/call-runtime.service';
import {
  ActionOutcome,
  DEFAULT_END_MESSAGE,
  DEFAULT_FORWARD_MESSAGE,
  LiveAction,
  LoadedCall,
} from '../runtime/call-runtime.types';
import { isEnded } from '../runtime/call-states';
import { CallsRepository } from '../calls.repository';

/**
 * Live actions (`say`, `forward`, `hangup`, `mute`, `unmute`, `dtmf`), performed by the call's owner in dispatch
 * order.
 */
@Injectable()
export class CallActions {
  private readonly logger = new Logger(CallActions.name);

  constructor(
    private readonly runtime: CallRuntime,
    private readonly calls: CallsRepository,
    private readonly messages: ConversationMessagesService,
    private readonly live: CallLive,
    private readonly unitOfWork: UnitOfWork,
    private readonly keypad: CallKeypad,
  ) {}

  /** Performs a live action on the owner, in the order dispatched; the action is stored and published. */
  async perform(
    workspaceId: WorkspaceId,
    callId: string,
    a: LiveAction,
    row?: Promise<LoadedCall>,
  ): Promise<ActionOutcome> {
    const loaded = await (row ?? this.runtime.loadForTurn(workspaceId, callId, false));
    const call = loaded.call;
    if (isEnded(call.status)) throw new CallEnded(call.id);
    if (a.action !== 'hangup') {
      if (call.status !== 'in-progress') throw new WrongCallStatus(call.id, call.status);
      if (call.handledBy === 'Human') throw AppException.conflict('Call is forwarded to a human');
    }
    // Stored before its effect so the transcript reads in order (the action, then what it made the agent say); its
    // publish is not waited for before the effect (one connection keeps the feed in order), only before the answer.
    const { published: announced } =
      call.status === 'in-progress' ? await this.record(call, a) : { published: Promise.resolve() };
    announced.catch(() => undefined); // awaited below
    try {
      return await this.act(workspaceId, callId, call, loaded, a);
    } finally {
      await announced;
    }
  }

  private async act(
    workspaceId: WorkspaceId,
    callId: string,
    call: Call,
    loaded: LoadedCall,
    a: LiveAction,
  ): Promise<ActionOutcome> {
    switch (a.action) {
      case 'say':
        if (a.interrupt) this.runtime.media.stop(callId);
        await this.runtime.say(call, a.message);
        if (a.end_call_after_spoken) await this.runtime.end(workspaceId, callId, 'api_hangup');
        return {};
      case 'hangup': {
        if (call.status === 'in-progress') {
          const agent = await this.runtime
            .context(loaded)
            .then((c) => c.agent)
            .catch(() => null);
          const endText = agent && voiceText(agent, 'end_call_message');
          await this.runtime.say(call, a.message ?? endText ?? DEFAULT_END_MESSAGE);
        }
        await this.runtime.end(workspaceId, callId, 'api_hangup');
        return {};
      }
      case 'mute':
      case 'unmute': {
        const muted = a.action === 'mute';
        if (muted) this.runtime.media.stop(callId);
        await this.unitOfWork.run(async (m) => {
          const locked = await this.calls.lock(workspaceId, callId, m);
          if (locked && !isEnded(locked.status)) {
            locked.muted = muted;
            await this.calls.save(workspaceId, locked, m);
          }
        });
        return { muted };
      }
      case 'dtmf':
        await this.keypad.press(workspaceId, callId, a.digits, call);
        return {};
      case 'voicemail':
        // Whatever the agent is saying stops; the message (after the beep) is said, then the call ends.
        this.runtime.media.stop(callId);
        if (a.message) await this.runtime.say(call, a.message);
        await this.runtime.end(workspaceId, callId, a.answered_by === 'fax' ? 'fax' : 'voicemail');
        return {};
      case 'forward': {
        await this.runtime.say(call, a.message ?? DEFAULT_FORWARD_MESSAGE);
        if (a.agent_uuid) await this.runtime.handOver(call, a.agent_uuid, null);
        if (!a.number) return {};
        const bridged = this.runtime.bridge(
          call,
          { type: 'phone_number', value: a.number },
          !!a.whisper,
          null,
          null,
        );
        // On a real line the other leg rings for up to its ring timeout: the actions queued after this one do not
        // wait for it (its outcome shows on the live feed). The sandbox's outcome is known at once.
        if (call.isSimulation) await bridged;
        else
          bridged.catch((err: Error) =>
            this.logger.warn({ callId, err: err.message }, 'forward to a number failed'),
          );
        return {};
      }
    }
  }

  /**
   * Stores the action as a system message; answers its publish on the live feed, under way. Its commit does not wait
   * for the WAL flush: the action's effect (a spoken message, the call's new state) commits synchronously after it
   * and before the action is acknowledged, and that flush writes the record out too. An action that fails or changes
   * nothing leaves its record to the WAL writer (a fraction of a second), which a PostgreSQL crash could lose.
   */
  private async record(call: Call, a: LiveAction): Promise<{ published: Promise<void> }> {
    const message = await this.messages.speak(call.workspaceId, call.id, JSON.stringify(a), {
      sender: 'system',
      messageType: 'action',
      flushLater: true,
    });
    return { published: this.live.publish(call.id, 'action', MessageResponse.of(message)) };
  }
}
