import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppException } from '@/common/errors/app.exception';
import { ConversationClosed } from '@/common/errors/domain-errors';
import { pageOf, Page, PageQuery, skipTake } from '@/common/http/pagination';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import type { NewRows } from '@/common/persistence/workspace-scoped.repository';
import { OutboxService } from '@/modules/events/outbox.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { AgentContextReader, agentInBody, ContactDirectory } from './agent-context';
import { Channel, isVoiceChannel } from './channels';
import { Conversation, ConversationSource } from './conversation.entity';
import type { Message } from './message.entity';
import { ConversationViewsRepository } from './conversation-views.repository';
import { ConversationsRepository } from './conversations.repository';
import { MessagesRepository } from './messages.repository';
import { ListConversationsQuery } from './dto/requests';
import { WHATSAPP_WINDOW_MS } from './channels';
import { ProviderMessageResponse } from './dto/message-view.response';
import { ConversationResponse, MessageResponse } from './dto/responses';
import { SessionsService } from './sessions.service';
import type { SessionEndReason } from './session.entity';

export interface OpenConversation {
  /** A chosen id (a call's conversation shares the call's). */
  id?: string;
  agentId: string;
  channel: Channel;
  contactId?: string;
  phone?: string;
  /** Default `live`. */
  source?: ConversationSource;
}

/** Conversations: open, read, close. Every state change writes its domain event in the same transaction. */
@Injectable()
export class ConversationsService {
  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly channelViews: ConversationViewsRepository,
    private readonly messages: MessagesRepository,
    private readonly sessions: SessionsService,
    private readonly agents: AgentContextReader,
    private readonly contacts: ContactDirectory,
    private readonly outbox: OutboxService,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  /** An agent reply the customer spoke over (a call's barge-in) is kept with `interrupted: true`. */
  markInterrupted(workspaceId: WorkspaceId, messageId: string): Promise<void> {
    return this.messages.markInterrupted(workspaceId, messageId);
  }

  /** Opens a conversation; body references that name nothing in this workspace are 422 on their field. */
  async open(workspaceId: WorkspaceId, input: OpenConversation): Promise<Conversation> {
    const agent = await agentInBody(this.agents, workspaceId, input.agentId);
    if (input.contactId && !(await this.contacts.find(workspaceId, input.contactId)))
      throw AppException.invalid(
        'contact_uuid',
        'contact_uuid names no contact of this workspace',
        'VALIDATION_ERROR',
      );
    return this.unitOfWork.run((m) => this.insert(m, workspaceId, { ...input, agentId: agent.agent_uuid }));
  }

  /**
   * Inside the caller's transaction, a conversation whose agent and contact the caller has checked (a call's):
   * nothing here takes a second connection from the pool while the transaction holds one.
   */
  async insert(
    m: EntityManager,
    workspaceId: WorkspaceId,
    input: Omit<OpenConversation, 'agentId'> & { agentId: string | null },
  ): Promise<Conversation> {
    // Every column is set here (the times too), so one INSERT writes it: no read ahead, nothing read back.
    const conversation = this.build(workspaceId, input);
    await this.conversations.insertNew(workspaceId, [conversation], m);
    await this.outbox.record(m, workspaceId, [this.statusEvent(conversation, 'started')]);
    return conversation;
  }

  /**
   * Outside any transaction, a conversation whose agent and contact the caller has checked, written in one statement
   * with its `started` event, its first active session when `session` is given (counting no message yet), and the
   * rows `alongside` (a messaging line's thread, keyed by the `id` the caller chose for the conversation).
   */
  async start(
    workspaceId: WorkspaceId,
    input: Omit<OpenConversation, 'agentId'> & { agentId: string | null },
    options: { session?: { at: Date; timeoutMs: number }; alongside?: NewRows[] } = {},
  ): Promise<Conversation> {
    const conversation = this.build(workspaceId, input);
    const rows = [...(options.alongside ?? [])];
    if (options.session)
      rows.unshift(this.sessions.newActive(conversation, options.session.at, options.session.timeoutMs).rows);
    await this.conversations.insertStarted(
      workspaceId,
      conversation,
      this.statusEvent(conversation, 'started'),
      rows,
    );
    return conversation;
  }

  /** A new active conversation with every column set. */
  private build(
    workspaceId: WorkspaceId,
    input: Omit<OpenConversation, 'agentId'> & { agentId: string | null },
  ): Conversation {
    const now = new Date();
    return this.conversations.build(workspaceId, {
      ...(input.id ? { id: input.id } : {}),
      agentId: input.agentId,
      contactId: input.contactId ?? null,
      channel: input.channel,
      status: 'active',
      source: input.source ?? 'live',
      phone: input.phone ?? null,
      lastMessageAt: null,
      closedAt: null,
      createdAt: now,
      updatedAt: now,
    });
  }

  async get(workspaceId: WorkspaceId, id: string, manager?: EntityManager): Promise<Conversation> {
    const conversation = await this.conversations.findById(workspaceId, id, manager);
    if (!conversation) throw AppException.notFound('Conversation');
    return conversation;
  }

  /** The conversation (404 when not in the workspace) with the agent configuration version as of the read. */
  async withConfigVersion(
    workspaceId: WorkspaceId,
    id: string,
  ): Promise<{ conversation: Conversation; agentConfigVersion: string | null }> {
    const read = await this.conversations.withConfigVersion(workspaceId, id);
    if (!read) throw AppException.notFound('Conversation');
    return read;
  }

  async list(workspaceId: WorkspaceId, q: ListConversationsQuery): Promise<Page<ConversationResponse>> {
    const [rows, total] = await this.conversations.list(workspaceId, q, skipTake(q));
    return pageOf(await this.views(workspaceId, rows), total, q);
  }

  /**
   * The conversation as GET answers it: who handles it (`Human` once handed over), and a WhatsApp one with when its
   * 24-hour messaging window closes.
   */
  async view(workspaceId: WorkspaceId, id: string): Promise<ConversationResponse> {
    const [view] = await this.views(workspaceId, [await this.get(workspaceId, id)]);
    return view;
  }

  private async views(workspaceId: WorkspaceId, rows: Conversation[]): Promise<ConversationResponse[]> {
    const whatsapp = rows.filter((c) => c.channel === 'whatsapp').map((c) => c.id);
    const [last, human] = await Promise.all([
      this.channelViews.lastInbound(workspaceId, whatsapp),
      this.channelViews.handedToHuman(
        workspaceId,
        rows.map((c) => c.id),
      ),
    ]);
    return rows.map((c) => {
      const view: ConversationResponse = {
        ...ConversationResponse.of(c),
        handled_by: human.has(c.id) ? 'Human' : 'AI',
      };
      if (c.channel !== 'whatsapp') return view;
      const at = last.get(c.id);
      return {
        ...view,
        messaging_window_expires_at: at ? new Date(at.getTime() + WHATSAPP_WINDOW_MS).toISOString() : null,
      };
    });
  }

  /** A conversation's messages as `GET /messages/{uuid}` answers each (one read for the page, whatever its size). */
  async listMessages(
    workspaceId: WorkspaceId,
    id: string,
    q: PageQuery,
  ): Promise<Page<ProviderMessageResponse>> {
    await this.get(workspaceId, id);
    const [rows, total] = await this.channelViews.messages(workspaceId, id, skipTake(q));
    return pageOf(
      rows.map((m) => ProviderMessageResponse.of(m)),
      total,
      q,
    );
  }

  /** Closes a text conversation (its active session ends with reason `closed`); a closed one is 409. */
  async close(workspaceId: WorkspaceId, id: string): Promise<Conversation> {
    await this.get(workspaceId, id);
    const { conversation, endedSession } = await this.unitOfWork.run(async (m) =>
      this.closeLocked(m, workspaceId, id, 'closed'),
    );
    if (endedSession) await this.sessions.queueEvaluation(workspaceId, endedSession);
    return conversation;
  }

  /** A call ended: the conversation closes and its session ends with reason `call_ended` (voice channels). */
  async endCall(workspaceId: WorkspaceId, id: string): Promise<Conversation> {
    const current = await this.get(workspaceId, id);
    if (!isVoiceChannel(current.channel))
      throw AppException.conflict('Only call conversations end with a call');
    const { conversation, endedSession } = await this.unitOfWork.run(async (m) =>
      this.closeLocked(m, workspaceId, id, 'call_ended'),
    );
    if (endedSession) await this.sessions.queueEvaluation(workspaceId, endedSession);
    return conversation;
  }

  /**
   * A customer's message in a conversation no agent serves (a number without a binding): stored with its event,
   * no session, no reply.
   */
  async storeUnattended(
    workspaceId: WorkspaceId,
    id: string,
    content: string,
    messageType = 'text',
  ): Promise<Message> {
    return this.unitOfWork.run(async (m) => {
      const conversation = await this.conversations.lock(workspaceId, id, m);
      if (!conversation) throw AppException.notFound('Conversation');
      const message = this.messages.build(workspaceId, {
        conversationId: id,
        sessionId: null,
        agentId: conversation.agentId,
        contactId: conversation.contactId,
        channel: conversation.channel,
        direction: 'inbound',
        sender: 'customer',
        messageType,
        content,
      });
      await this.messages.save(workspaceId, message, m);
      conversation.lastMessageAt = message.createdAt;
      await this.conversations.save(workspaceId, conversation, m);
      await this.outbox.record(m, workspaceId, [
        {
          type: 'conversation_update',
          agentId: conversation.agentId,
          data: { message: MessageResponse.of(message), conversation_uuid: id },
        },
      ]);
      return message;
    });
  }

  /** A call handed to another agent: the conversation (and its open session) continue with that agent. */
  async handOver(m: EntityManager, workspaceId: WorkspaceId, id: string, agentId: string): Promise<void> {
    const conversation = await this.conversations.lock(workspaceId, id, m);
    if (!conversation) throw AppException.notFound('Conversation');
    conversation.agentId = agentId;
    await this.conversations.save(workspaceId, conversation, m);
  }

  /** Inside a transaction: lock, refuse if closed, close, end the session, write the event. */
  async closeLocked(
    m: EntityManager,
    workspaceId: WorkspaceId,
    id: string,
    reason: SessionEndReason,
  ): Promise<{ conversation: Conversation; endedSession: string | null }> {
    const conversation = await this.conversations.lock(workspaceId, id, m);
    if (!conversation) throw AppException.notFound('Conversation');
    if (conversation.status === 'closed') throw new ConversationClosed(id, true);
    conversation.status = 'closed';
    conversation.closedAt = new Date();
    await this.conversations.save(workspaceId, conversation, m);
    const session = await this.sessions.endActive(m, conversation, reason);
    await this.outbox.record(m, workspaceId, [this.statusEvent(conversation, 'closed')]);
    return { conversation, endedSession: session?.id ?? null };
  }

  statusEvent(c: Conversation, change: 'started' | 'closed') {
    return {
      type: 'conversation_status' as const,
      agentId: c.agentId,
      data: { change, conversation: ConversationResponse.of(c) },
    };
  }
}
