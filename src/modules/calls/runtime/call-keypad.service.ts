import { Inject, Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { CallEnded, WrongCallStatus } from '@/common/errors/domain-errors';
import { ConversationMessagesService } from '@/modules/conversations/conversation-messages.service';
import { MessageResponse } from '@/modules/conversations/dto/responses';
import type { CallKeypad as CallKeypadPort } from '@/modules/intents/runtime/call-keypad.port';
import { TelephonyRegistry } from '@/providers/telephony/telephony.registry';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { Call } from '../call.entity';
import { CallLive } from './call-live';
import { CALL_MEDIA, CallMedia } from '../call-media.port';
import { isEnded } from './call-states';
import { CallsRepository } from '../calls.repository';

/**
 * Keys the agent presses on a phone call (the `send_dtmf` tool, the `dtmf` live action): sent through the call's
 * provider, kept in the call's provider log and stored as the agent's message of type `dtmf`. The intents' tools
 * reach it through their CALL_KEYPAD port, and a turn runs those tools: so it uses neither the turn pipeline nor the
 * runtime (it writes the message and the call's activity itself).
 */
@Injectable()
export class CallKeypad implements CallKeypadPort {
  constructor(
    private readonly calls: CallsRepository,
    private readonly telephony: TelephonyRegistry,
    private readonly messages: ConversationMessagesService,
    private readonly live: CallLive,
    @Inject(CALL_MEDIA) private readonly media: CallMedia,
  ) {}

  async press(
    workspaceId: WorkspaceId,
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
    this.media.hold(callId);
    let detail: Record<string, unknown>;
    try {
      detail = await adapter.sendDigits(ref, digits);
    } catch (err) {
      this.media.release(callId);
      throw err;
    }
    const at = new Date();
    const entry = { digits, detail, sent_at: at.toISOString() };
    const [message] = await Promise.all([
      this.messages.speak(workspaceId, callId, digits, {
        messageType: 'dtmf',
        within: (m) => this.calls.logProviderEvent(workspaceId, callId, entry, m),
      }),
      this.calls.touch(workspaceId, callId, at), // someone spoke: the silence clock restarts
    ]);
    await this.live.publish(callId, 'transcript', MessageResponse.of(message));
    return { digits, message_uuid: message.id };
  }
}
