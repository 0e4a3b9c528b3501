import { Injectable, Logger } from '@nestjs/common';
import { BlacklistService } from '@/modules/blacklist/blacklist.service';
import { AgentContextReader, sessionTimeoutMs } from '@/modules/conversations/agent-context';
import { ConversationsService } from '@/modules/conversations/conversations.service';
import { PhoneNumbersService } from '@/modules/phone-numbers/phone-numbers.service';
import { outcomeOf, TurnRuntime } from '@/modules/runtime/public';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { InboundItem } from './inbound-queue';
import { LineNumber, MessageSender } from './message-sender';
import { MessagingLines } from './messaging-lines';
import type { MessagingThread, ProviderMessage } from './messaging.entities';
import { FoundLine, ProviderMessagesRepository } from './messaging.repositories';
import { optOutKeyword } from './opt-out';
import { VoiceNotes } from './voice-notes';

interface Route {
  workspaceId: WorkspaceId;
  number: LineNumber | null;
  pageId: string | null;
  agentId: string | null;
  /** This provider message was received already (a repeated delivery). */
  seen: boolean;
  /** The line's active conversation when the routing read found it too (null: none; absent: not read). */
  line?: FoundLine | null;
  /** Whether the customer is on the do-not-contact list, when the routing read told. */
  blacklisted?: boolean;
  /** The workspace's agent configuration version, when the routing read told. */
  configVersion?: string | null;
}

export interface InboundOutcome {
  workspaceId: WorkspaceId;
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
    private readonly records: ProviderMessagesRepository,
    private readonly lines: MessagingLines,
    private readonly conversations: ConversationsService,
    private readonly runtime: TurnRuntime,
    private readonly blacklist: BlacklistService,
    private readonly sender: MessageSender,
    private readonly voiceNotes: VoiceNotes,
    private readonly agentContext: AgentContextReader,
  ) {}

  async process(item: InboundItem): Promise<InboundOutcome | null> {
    const route = await this.route(item);
    if (!route) {
      this.logger.warn({ channel: item.channel, to: item.to }, 'inbound message for no known number or page');
      return null;
    }
    if (route.seen) return null;
    const ws = route.workspaceId;
    // A voice note is its transcript; one not heard (no speech to text, or it failed) stays `[audio]`, unanswered.
    const audio = item.messageType === 'audio';
    const heard = audio ? await this.voiceNotes.transcribe(item) : null;
    const text = heard ?? item.text;
    const byPhone = item.channel === 'sms' || item.channel === 'whatsapp';
    // The contact is looked up (or created, as the contact settings say) only when it is needed: a new
    // conversation, or an opt-out.
    let contact: Promise<string | null> | null = null;
    const contactId = () =>
      (contact ??= byPhone ? this.lines.inboundContactFor(ws, item.from) : Promise.resolve(null));
    // The line's conversation is the routed agent's (the thread read matched on it): its turn context is given to
    // the turn, kept from an earlier message while the configuration version the routing read is unchanged, so the
    // turn reads neither the conversation ahead nor the agent (the conversation row is still checked as it is locked).
    const context = route.agentId
      ? await this.agentContext.forTurn(ws, route.agentId, route.configVersion)
      : null;
    const { thread, blacklisted, opened } = await this.lines.open(
      ws,
      {
        channel: item.channel,
        phoneNumberId: route.number?.id ?? null,
        pageId: route.pageId,
        customerAddress: item.from,
        agentId: route.agentId,
      },
      contactId,
      route.line,
      context ? { at: new Date(), timeoutMs: sessionTimeoutMs(context.evaluation) } : undefined,
    );
    // Only typed words opt out: a transcript is not a deliberate keyword. A number with no agent bound takes them too.
    const keyword = byPhone && !audio ? optOutKeyword(item.text) : null;
    if (keyword === 'stop') await this.blacklist.optOut(ws, item.from, await contactId());
    if (keyword === 'start') await this.blacklist.liftOptOut(ws, item.from);
    if (!route.agentId || !context) {
      const stored = await this.conversations.storeUnattended(ws, thread.id, text, item.messageType);
      await this.records.insertNew(ws, [this.inboundRecord(ws, stored.id, thread, route, item)]);
      return { workspaceId: ws, messageId: stored.id, replyId: null, conversationId: thread.id };
    }
    const silent =
      keyword !== null ||
      (audio && heard === null) ||
      thread.handledBy === 'Human' ||
      (byPhone &&
        (blacklisted ?? route.blacklisted ?? (await this.blacklist.isBlacklisted(ws, { phone: item.from }))));
    // The conversation is known from the routing read (an open line) or was just opened: the reply starts beside
    // the message's write.
    const knownContact = opened
      ? opened.contactId
      : route.line && route.line.id === thread.id
        ? route.line.contactId
        : undefined;
    const turn = await outcomeOf(
      this.runtime.takeTurn({
        workspaceId: ws,
        conversationId: thread.id,
        content: text,
        muted: silent,
        messageType: item.messageType,
        context,
        ...(knownContact !== undefined
          ? {
              conversation: {
                id: thread.id,
                workspaceId: ws,
                channel: thread.channel,
                contactId: knownContact,
              },
            }
          : {}),
      }),
    );
    const inbound = this.inboundRecord(ws, turn.message.uuid, thread, route, item);
    if (turn.action?.kind === 'guard' && turn.action.type === 'forward')
      await this.lines.handOff(ws, thread.id);
    // The inbound record and the reply's go in one statement; the reply leaves at once, in the thread's turn.
    if (turn.reply)
      await this.sender.record(
        ws,
        { messageId: turn.reply.uuid, thread, number: route.number },
        { inline: { text: turn.reply.content }, alongside: [inbound] },
      );
    else await this.records.insertNew(ws, [inbound]);
    return {
      workspaceId: ws,
      messageId: turn.message.uuid,
      replyId: turn.reply?.uuid ?? null,
      conversationId: turn.conversation.uuid,
    };
  }

  private inboundRecord(
    workspaceId: WorkspaceId,
    messageId: string,
    thread: MessagingThread,
    route: Route,
    item: InboundItem,
  ): ProviderMessage {
    return this.records.build(workspaceId, {
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
  }

  /** The workspace and the line from the address the provider delivered to, and whether it was received before. */
  private async route(item: InboundItem): Promise<Route | null> {
    if (item.channel === 'messenger' || item.channel === 'instagram') {
      const page = await this.numbers.routePage(item.to);
      if (!page) return null;
      const seen = await this.records.seen(page.workspaceId, item.provider, item.providerMessageId);
      return { workspaceId: page.workspaceId, number: null, pageId: item.to, agentId: page.agentId, seen };
    }
    const found = await this.records.routeInbound(item);
    return found ? { ...found, pageId: null } : null;
  }
}
