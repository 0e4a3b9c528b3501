import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { CallEnded, WrongCallStatus } from '@/common/errors/domain-errors';
import { ConversationTurnsService } from '@/modules/conversations/conversation-turns.service';
import { MessageResponse } from '@/modules/conversations/dto/responses';
import type { CallKeypad as CallKeypadPort } from '@/modules/intents/runtime/call-keypad.port';
import { TelephonyRegistry } from '@/providers/telephony/telephony.registry';
import type { Call } from './call.entity';
import { CallLive } from './call-live';
import { CallRuntime } from './call-runtime.service';
import { isEnded } from './call-states';
import { CallsRepository } from './calls.repository';

/**
 * Keys the agent presses on a phone call (the `send_dtmf` tool, the `dtmf` live action): sent through the call's
 * provider, kept in the call's provider log and stored as the agent's message of type `dtmf`.
 */
@Injectable()
export class CallKeypad implements CallKeypadPort {
  constructor(
    private readonly calls: CallsRepository,
    private readonly telephony: TelephonyRegistry,
    private readonly turns: ConversationTurnsService,
    private readonly runtime: CallRuntime,
    private readonly live: CallLive,
  ) {}

  async press(
    workspaceId: string,
    callId: string,
    digits: string,
    row?: Call,
  ): Promise<{ digits: string; message_uuid: string }> {
    const call = row ?? (await this.calls.findById(workspaceId, callId));
    if (!call) throw AppException.notFound('Call');
    if (isEnded(call.status)) throw new CallEnded(call.id);
    if (call.status !== 'in-progress') throw new WrongCallStatus(call.id, call.status);
    if (call.handledBy === 'Human') throw AppException.conflict('Call is forwarded to a human');
    if (call.channel !== 'phone') throw AppException.conflict('Keys can be pressed on phone calls only');
    const adapter = this.telephony.for(call.provider);
    const ref = { workspaceId, callId, providerCallId: call.providerCallId, to: call.toNumber };
    // The stream ends while the keys play and comes back: what the agent says meanwhile waits for it.
    this.runtime.media.hold?.(callId);
    let detail: Record<string, unknown>;
    try {
      detail = await adapter.sendDigits(ref, digits);
    } catch (err) {
      this.runtime.media.release?.(callId);
      throw err;
    }
    const at = new Date();
    const entry = { digits, detail, sent_at: at.toISOString() };
    const [message] = await Promise.all([
      this.turns.speak(workspaceId, callId, digits, {
        messageType: 'dtmf',
        within: (m) => this.calls.logProviderEvent(workspaceId, callId, entry, m),
      }),
      this.runtime.activity(call, at),
    ]);
    await this.live.publish(callId, 'transcript', MessageResponse.of(message));
    return { digits, message_uuid: message.id };
  }
}
