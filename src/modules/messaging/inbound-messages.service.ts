import { Injectable, Logger } from '@nestjs/common';
import { BlacklistService } from '@/modules/blacklist/blacklist.service';
import { ConversationTurnsService } from '@/modules/conversations/conversation-turns.service';
import { ConversationsService } from '@/modules/conversations/conversations.service';
import type { PhoneNumber } from '@/modules/phone-numbers/phone-number.entity';
import { PhoneNumbersService } from '@/modules/phone-numbers/phone-numbers.service';
import { WhatsappNumbersRepository } from '@/modules/phone-numbers/whatsapp-sender';
import type { InboundItem } from './inbound-queue';
import { MessageSender } from './message-sender';
import { MessagingLines } from './messaging-lines';
import type { MessagingThread } from './messaging.entities';
import { ProviderMessagesRepository } from './messaging.repositories';
import { optOutKeyword } from './opt-out';
import { VoiceNotes } from './voice-notes';

interface Route {
  workspaceId: string;
  number: PhoneNumber | null;
  pageId: string | null;
  agentId: string | null;
}

export interface InboundOutcome {
  workspaceId: string;
  messageId: string;
  replyId: string | null;
  conversationId: string;
}

/**
 * An inbound message, in its thread's turn: routed by the number (or page) addressed, stored in the bound agent's
 * active conversation with the customer (else a new one), run through the turn pipeline, and the reply queued on
 * the same channel from the same number. Opt-out words, a human hand-off and the do-not-contact list silence it.
 */
@Injectable()
export class InboundMessagesService {
  private readonly logger = new Logger(InboundMessagesService.name);

  constructor(
    private readonly numbers: PhoneNumbersService,
    private readonly whatsappNumbers: WhatsappNumbersRepository,
    private readonly records: ProviderMessagesRepository,
    private readonly lines: MessagingLines,
    private readonly conversations: ConversationsService,
    private readonly turns: ConversationTurnsService,
    private readonly blacklist: BlacklistService,
    private readonly sender: MessageSender,
    private readonly voiceNotes: VoiceNotes,
  ) {}

  async process(item: InboundItem): Promise<InboundOutcome | null> {
    const route = await this.route(item);
    if (!route) {
      this.logger.warn({ channel: item.channel, to: item.to }, 'inbound message for no known number or page');
      return null;
    }
    const ws = route.workspaceId;
    if (await this.records.seen(ws, item.provider, item.providerMessageId)) return null;
    // A voice note is its transcript; one not heard (no speech to text, or it failed) stays `[audio]`, unanswered.
    const audio = item.messageType === 'audio';
    const heard = audio ? await this.voiceNotes.transcribe(item) : null;
    const text = heard ?? item.text;
    const byPhone = item.channel === 'sms' || item.channel === 'whatsapp';
    const contactId = byPhone ? await this.lines.inboundContactFor(ws, item.from) : null;
    const thread = await this.lines.open(
      ws,
      {
        channel: item.channel,
        phoneNumberId: route.number?.id ?? null,
        pageId: route.pageId,
        customerAddress: item.from,
        agentId: route.agentId,
      },
      contactId,
    );
    if (!route.agentId) {
      const stored = await this.conversations.storeUnattended(ws, thread.id, text, item.messageType);
      await this.recordInbound(ws, stored.id, thread, route, item);
      return { workspaceId: ws, messageId: stored.id, replyId: null, conversationId: thread.id };
    }
    // Only typed words opt out: a transcript is not a deliberate keyword.
    const keyword = byPhone && !audio ? optOutKeyword(item.text) : null;
    if (keyword === 'stop') await this.blacklist.optOut(ws, item.from, contactId);
    if (keyword === 'start') await this.blacklist.liftOptOut(ws, item.from);
    const silent =
      keyword !== null ||
      (audio && heard === null) ||
      thread.handledBy === 'Human' ||
      (byPhone && (await this.blacklist.isBlacklisted(ws, { phone: item.from })));
    const turn = await this.turns.takeTurn(ws, thread.id, text, {
      muted: silent,
      messageType: item.messageType,
    });
    await this.recordInbound(ws, turn.message.uuid, thread, route, item);
    if (turn.action?.kind === 'guard' && turn.action.type === 'forward')
      await this.lines.handOff(ws, thread.id);
    if (turn.reply)
      await this.sender.record(
        ws,
        { messageId: turn.reply.uuid, thread, number: route.number },
        { inline: true },
      );
    return {
      workspaceId: ws,
      messageId: turn.message.uuid,
      replyId: turn.reply?.uuid ?? null,
      conversationId: turn.conversation.uuid,
    };
  }

  private async recordInbound(
    workspaceId: string,
    messageId: string,
    thread: MessagingThread,
    route: Route,
    item: InboundItem,
  ): Promise<void> {
    const record = this.records.build(workspaceId, {
      id: messageId,
      conversationId: thread.id,
      phoneNumberId: route.number?.id ?? null,
      channel: item.channel,
      direction: 'inbound',
      fromAddress: item.from,
      toAddress: route.number?.number ?? route.pageId ?? item.to,
      provider: item.provider,
      providerMessageId: item.providerMessageId,
      deliveryStatus: 'received',
      error: null,
      statusUpdatedAt: new Date(item.receivedAt),
      template: null,
      metadata: {},
      isSimulation: item.provider === 'sandbox',
    });
    await this.records.save(workspaceId, record);
  }

  /** The workspace and the line from the address the provider delivered to. */
  private async route(item: InboundItem): Promise<Route | null> {
    if (item.channel === 'messenger' || item.channel === 'instagram') {
      const page = await this.numbers.routePage(item.to);
      return page
        ? { workspaceId: page.workspaceId, number: null, pageId: item.to, agentId: page.agentId }
        : null;
    }
    let found: { workspaceId: string; id: string } | null;
    if (item.workspaceId) {
      const n = await this.numbers.findByNumber(item.workspaceId, item.to);
      found = n ? { workspaceId: item.workspaceId, id: n.id } : null;
    } else if (item.channel === 'whatsapp') {
      const sender = await this.whatsappNumbers.byMetaId(item.to);
      found = sender ? { workspaceId: sender.workspaceId, id: sender.id } : null;
    } else found = await this.numbers.routeNumber(item.provider, item.to);
    if (!found) return null;
    const number = await this.numbers.find(found.workspaceId, found.id);
    if (!number) return null;
    const agentId = await this.numbers.boundAgent(found.workspaceId, number.id, item.channel);
    return { workspaceId: found.workspaceId, number, pageId: null, agentId };
  }
}
