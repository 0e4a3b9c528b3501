import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AppException } from '@/common/errors/app.exception';
import { assertPhoneNumber, isUuid } from '@/common/validation/validators';
import { BlacklistService } from '@/modules/blacklist/blacklist.service';
import { checkMetadata } from '@/modules/calls/runtime/call-context';
import { ContactsService } from '@/modules/contacts/contacts.service';
import { WHATSAPP_WINDOW_MS } from '@/modules/conversations/channels';
import { AgentContextReader, agentInBody } from '@/modules/conversations/agent-context';
import { ConversationMessagesService } from '@/modules/conversations/conversation-messages.service';
import type { PhoneNumber } from '@/modules/phone-numbers/phone-number.entity';
import { MessagingRegistry } from '@/providers/messaging/messaging.registry';
import { PhoneNumbersService } from '@/modules/phone-numbers/phone-numbers.service';
import type { SendSmsDto, SendWhatsappTextDto } from './dto/requests';
import type { ProviderMessageResponse } from '@/modules/conversations/dto/message-view.response';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { MessageSender, OutboundRecord } from './message-sender';
import { MessageStatusService } from './message-status.service';
import { MessagingLines } from './messaging-lines';
import { ProviderMessagesRepository } from './messaging.repositories';

type NumberChannel = 'sms' | 'whatsapp';

export interface OutboundRequest {
  agentId: string;
  channel: NumberChannel;
  to: string;
  content: string;
  phoneNumberId?: string;
  contactId?: string;
  metadata?: Record<string, unknown>;
  template?: OutboundRecord['template'];
  /** A template's WhatsApp Business Account: the message leaves from a number on it. */
  wabaId?: string;
  messageType?: string;
  /**
   * More writes in the transaction that stores the message (an outbound task's start, under its lock): when it
   * throws, nothing is stored and nothing is sent; the message is handed to the provider only once it commits.
   */
  link?: (tx: EntityManager, messageId: string) => Promise<void>;
}

/** Messages the API sends: `POST /sms/send`, `POST /whatsapp/messages`, and templates (through `send`). */
@Injectable()
export class OutboundMessagesService {
  constructor(
    private readonly agents: AgentContextReader,
    private readonly numbers: PhoneNumbersService,
    private readonly contacts: ContactsService,
    private readonly blacklist: BlacklistService,
    private readonly lines: MessagingLines,
    private readonly messages: ConversationMessagesService,
    private readonly sender: MessageSender,
    private readonly status: MessageStatusService,
    private readonly records: ProviderMessagesRepository,
    private readonly registry: MessagingRegistry,
  ) {}

  async sendSms(workspaceId: WorkspaceId, dto: SendSmsDto): Promise<ProviderMessageResponse> {
    const agentId = dto.agent_uuid ?? dto.agentId;
    const to = dto.to ?? dto.phoneNumber;
    const body = dto.body ?? dto.message;
    if (!agentId)
      throw AppException.invalid('agent_uuid', 'agent_uuid should not be empty', 'VALIDATION_ERROR');
    if (!to) throw AppException.invalid('to', 'to should not be empty', 'VALIDATION_ERROR');
    assertPhoneNumber('to', to);
    if (!body) throw AppException.invalid('body', 'body should not be empty', 'VALIDATION_ERROR');
    return this.send(workspaceId, {
      agentId,
      channel: 'sms',
      to,
      content: body,
      phoneNumberId: dto.phone_number_uuid,
      contactId: dto.contact_uuid,
      metadata: checkMetadata(dto.metadata ?? undefined),
    });
  }

  /** Free WhatsApp text: only within 24 hours of the contact's last message to that number. */
  async sendWhatsappText(
    workspaceId: WorkspaceId,
    dto: SendWhatsappTextDto,
  ): Promise<ProviderMessageResponse> {
    return this.send(workspaceId, {
      agentId: dto.agent_uuid,
      channel: 'whatsapp',
      to: dto.to,
      content: dto.text,
      phoneNumberId: dto.phone_number_uuid,
    });
  }

  /** Checks, the conversation, the agent's message, then the provider record at `queued`. */
  async send(workspaceId: WorkspaceId, req: OutboundRequest): Promise<ProviderMessageResponse> {
    const agent = await agentInBody(this.agents, workspaceId, req.agentId);
    const number = await this.senderNumber(
      workspaceId,
      agent.agent_uuid,
      req.channel,
      req.phoneNumberId,
      req.wabaId,
    );
    this.registry.assertCanSend(number, req.channel);
    this.numbers.assertCanSend(number, req.channel);
    if (req.contactId && !(await this.contacts.find(workspaceId, req.contactId)))
      throw AppException.invalid(
        'contact_uuid',
        'contact_uuid names no contact of this workspace',
        'VALIDATION_ERROR',
      );
    await this.blacklist.assertAllowed(workspaceId, { phone: req.to });
    if (req.channel === 'whatsapp' && !req.template) await this.assertWindow(workspaceId, number, req.to);
    const contactId = req.contactId ?? (await this.lines.contactFor(workspaceId, req.to));
    const { thread } = await this.lines.open(
      workspaceId,
      {
        channel: req.channel,
        phoneNumberId: number.id,
        pageId: null,
        customerAddress: req.to,
        agentId: agent.agent_uuid,
      },
      () => Promise.resolve(contactId),
    );
    const record = (messageId: string) => ({
      messageId,
      thread,
      number,
      template: req.template,
      metadata: req.metadata,
    });
    const link = req.link;
    if (link) {
      const message = await this.messages.speak(workspaceId, thread.id, req.content, {
        messageType: req.messageType,
        within: async (tx, m) => {
          await link(tx, m.id);
          await this.sender.recordIn(tx, workspaceId, record(m.id));
        },
      });
      await this.sender.queueSend(workspaceId, message.id);
      return this.status.view(workspaceId, message.id);
    }
    const message = await this.messages.speak(workspaceId, thread.id, req.content, {
      messageType: req.messageType,
    });
    await this.sender.record(workspaceId, record(message.id));
    return this.status.view(workspaceId, message.id);
  }

  /** 409 OUTSIDE_MESSAGING_WINDOW unless the contact wrote to this number within 24 hours. */
  private async assertWindow(workspaceId: WorkspaceId, number: PhoneNumber, to: string): Promise<void> {
    const last = await this.records.lastInbound(workspaceId, number.id, 'whatsapp', to);
    if (last && Date.now() - last.getTime() < WHATSAPP_WINDOW_MS) return;
    const closedAt = last ? new Date(last.getTime() + WHATSAPP_WINDOW_MS).toISOString() : null;
    throw new AppException(
      'OUTSIDE_MESSAGING_WINDOW',
      last
        ? `The 24-hour messaging window closed at ${closedAt}: send a template instead`
        : 'The contact has never written to this number: send a template instead',
      { details: JSON.stringify({ last_inbound_at: last?.toISOString() ?? null, closed_at: closedAt }) },
    );
  }

  /**
   * The number named, else the agent's first number on the channel; none is 422 on phone_number_uuid. A template
   * (`wabaId`) leaves from a number on its WhatsApp Business Account: the first such number of the agent by
   * default, and a named number on another account is refused (Meta would refuse the send).
   */
  private async senderNumber(
    workspaceId: WorkspaceId,
    agentId: string,
    channel: NumberChannel,
    named?: string,
    wabaId?: string,
  ): Promise<PhoneNumber> {
    const refuse = (message: string) =>
      AppException.invalid('phone_number_uuid', message, 'VALIDATION_ERROR');
    /** Whether the number may carry the template: on its account, or on no known account. */
    const onAccount = async (n: PhoneNumber) =>
      !wabaId || ((await this.numbers.whatsappSender(workspaceId, n.id))?.wabaId ?? wabaId) === wabaId;
    if (named !== undefined) {
      const number = isUuid(named) ? await this.numbers.find(workspaceId, named) : null;
      if (!number) throw refuse('phone_number_uuid names no phone number of this workspace');
      if ((await this.numbers.boundAgent(workspaceId, number.id, channel)) !== agentId)
        throw refuse(`The agent does not serve the ${channel} channel of ${number.number}`);
      if (!(await onAccount(number)))
        throw refuse(`${number.number} is on another WhatsApp Business Account than the template`);
      return number;
    }
    if (wabaId) {
      for (const n of await this.numbers.boundNumbers(workspaceId, agentId, channel))
        if (await onAccount(n)) return n;
      throw refuse(
        "phone_number_uuid is required: the agent has no WhatsApp number on the template's WhatsApp Business Account",
      );
    }
    const number = await this.numbers.boundNumber(workspaceId, agentId, channel);
    if (!number) throw refuse(`phone_number_uuid is required: the agent has no number bound to ${channel}`);
    return number;
  }
}
