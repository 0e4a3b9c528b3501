import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { AppException } from '@/common/errors/app.exception';
import { ConversationsService } from '@/modules/conversations/conversations.service';
import { PhoneNumbersService } from '@/modules/phone-numbers/phone-numbers.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { SimulatedInboundResponse } from './dto/message.response';
import { InboundMessagesService } from './inbound-messages.service';
import { InboundItem, InboundQueue, threadOf } from './inbound-queue';
import { MessageStatusService } from './message-status.service';

/** `POST /sms/simulate-inbound`, `/whatsapp/simulate-inbound`: the real inbound path, answered synchronously. */
@Injectable()
export class InboundSimulation {
  constructor(
    private readonly numbers: PhoneNumbersService,
    private readonly queue: InboundQueue,
    private readonly inbound: InboundMessagesService,
    private readonly status: MessageStatusService,
    private readonly conversations: ConversationsService,
  ) {}

  async run(
    workspaceId: WorkspaceId,
    channel: 'sms' | 'whatsapp',
    input: { to: string; from: string; text: string },
  ): Promise<SimulatedInboundResponse> {
    const number = await this.numbers.findByNumber(workspaceId, input.to);
    if (!number)
      throw AppException.invalid('to', 'to names no phone number of this workspace', 'VALIDATION_ERROR');
    if (number.provider !== 'sandbox') throw AppException.conflict('Simulations take sandbox numbers only');
    const item: InboundItem = {
      channel,
      provider: 'sandbox',
      to: number.number,
      from: input.from,
      text: input.text,
      messageType: 'text',
      providerMessageId: `${channel === 'sms' ? 'SM' : 'wamid.SB'}${randomBytes(16).toString('hex')}`,
      workspaceId,
      receivedAt: Date.now(),
    };
    const outcome = await this.queue.exclusive(
      threadOf(item),
      (queued) => this.inbound.process(queued),
      () => this.inbound.process(item),
    );
    if (!outcome) throw AppException.conflict('The message could not be routed');
    const [message, reply, conversation] = await Promise.all([
      this.status.view(workspaceId, outcome.messageId),
      outcome.replyId ? this.status.view(workspaceId, outcome.replyId) : Promise.resolve(null),
      this.conversations.view(workspaceId, outcome.conversationId),
    ]);
    return { message, reply, conversation };
  }
}
