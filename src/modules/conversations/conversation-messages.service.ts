import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { ConversationClosed } from '@/common/errors/domain-errors';
import { newId } from '@/common/persistence/base.entity';
import { Transaction, UnitOfWork } from '@/common/persistence/unit-of-work';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { AgentContextReader, sessionTimeoutMs } from './agent-context';
import type { Conversation } from './conversation.entity';
import { ConversationsService } from './conversations.service';
import { isVoiceChannel } from './channels';
import { MessageResponse } from './dto/responses';
import { Message } from './message.entity';
import { MessagesRepository, SessionTarget } from './messages.repository';
import type { Session } from './session.entity';
import { SessionsService } from './sessions.service';

/** A message as the turn decides it; the conversation supplies the rest. */
export type Draft = Pick<Message, 'direction' | 'sender' | 'content' | 'messageType'>;

/** A message as written, with its conversation and session (and the session's idle clock before it). */
export interface Written {
  conversation: Conversation;
  message: Message;
  session: Session;
  previousActivityMs: number | null;
}

/**
 * The writes of a conversation's messages: a turn's customer and agent messages, and what the agent or the system
 * says outside a turn. Each is one statement with its `conversation_update` event that locks the conversation, and a
 * transaction opens the session only when none is active.
 */
@Injectable()
export class ConversationMessagesService {
  constructor(
    private readonly messages: MessagesRepository,
    private readonly conversationsService: ConversationsService,
    private readonly sessions: SessionsService,
    private readonly agents: AgentContextReader,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  /**
   * The customer's message into the active session (opening one when none is active), then the session's idle
   * timeout (a call's session ends with the call, never by idleness).
   */
  async storeCustomerMessage(
    workspaceId: WorkspaceId,
    conversationId: string,
    draft: Draft,
    now: Date,
    timeoutMs: number,
    id: string,
  ): Promise<Written> {
    const target: SessionTarget = { active: true, activityAt: now, timeoutMs };
    const check = (conv: Conversation) => this.assertOpen(conv);
    const written =
      (await this.append(workspaceId, conversationId, draft, target, check, undefined, id)) ??
      (await this.appendOpening(
        workspaceId,
        conversationId,
        draft,
        target,
        check,
        (m, conv) => this.sessions.touch(m, conv, now, timeoutMs).then((t) => t.session),
        undefined,
        id,
      ));
    if (!isVoiceChannel(written.conversation.channel))
      await this.sessions.scheduleTimeout(written.session, written.previousActivityMs);
    return written;
  }

  /** The conversation's `limit` latest messages, oldest first (a reply's context window). */
  recent(workspaceId: WorkspaceId, conversationId: string, limit: number): Promise<Message[]> {
    return this.messages.recent(workspaceId, conversationId, limit);
  }

  async storeAgentMessage(conversation: Conversation, session: Session, content: string): Promise<Message> {
    const draft: Draft = { direction: 'outbound', sender: 'agent', content, messageType: 'text' };
    const target = { id: session.id, count: true };
    return (await this.append(conversation.workspaceId, conversation.id, draft, target, () => undefined))!
      .message;
  }

  /**
   * A message the agent (or the system, for a call's live actions) says outside a customer's turn, opening the
   * session when none is active, as a call's first message does.
   */
  async speak(
    workspaceId: WorkspaceId,
    conversationId: string,
    content: string,
    options: {
      sender?: 'agent' | 'system';
      messageType?: string;
      /** More writes in the message's transaction (its records). */
      within?: (m: import('typeorm').EntityManager, message: Message) => Promise<void>;
      /**
       * The caller commits another write synchronously before it answers (MessagesRepository.append `flushLater`),
       * so this message need not wait for its own WAL flush.
       */
      flushLater?: boolean;
    } = {},
  ): Promise<Message> {
    const draft: Draft = {
      direction: 'outbound',
      sender: options.sender ?? 'agent',
      content,
      messageType: options.messageType ?? 'text',
    };
    const check = (conv: Conversation) => {
      if (conv.status === 'closed') throw new ConversationClosed(conv.id);
    };
    // Opens the session if needed: the idle timeout is read outside any transaction (a transaction never waits for a
    // second connection), then a transaction writes the message (`within` runs in it).
    const opening = async (within?: typeof options.within) => {
      const current = await this.conversationsService.get(workspaceId, conversationId);
      const timeoutMs = await this.sessionTimeout(workspaceId, current.agentId);
      const written = await this.appendOpening(
        workspaceId,
        conversationId,
        draft,
        { active: true },
        check,
        (m, conv) => this.sessions.touch(m, conv, new Date(), timeoutMs).then((t) => t.session),
        within,
      );
      return written.message;
    };
    // Writes that must share the message's transaction (a tool call's records) take the transactional path.
    if (options.within) return opening(options.within);
    // Into the active session (the common case: no settings to read); else the session is opened.
    const spoken = await this.append(
      workspaceId,
      conversationId,
      draft,
      { active: true },
      check,
      undefined,
      undefined,
      options.flushLater,
    );
    return spoken ? spoken.message : opening();
  }

  assertOpen(conv: Conversation): void {
    if (conv.status === 'closed') throw new ConversationClosed(conv.id);
    if (!conv.agentId) throw AppException.conflict('The agent of this conversation was deleted');
  }

  /** The idle timeout of the agent's effective evaluation settings, in milliseconds. */
  private async sessionTimeout(workspaceId: WorkspaceId, agentId: string | null): Promise<number> {
    return sessionTimeoutMs(await this.agents.evaluation(workspaceId, agentId));
  }

  /**
   * Writes a message with its `conversation_update` event in one statement that locks the conversation (404 when it
   * is not in the workspace; `check` refuses a conversation whose state the statement left untouched). Null when the
   * target wants the active session and there is none: the caller then opens one (appendOpening).
   */
  private async append(
    workspaceId: WorkspaceId,
    conversationId: string,
    draft: Draft,
    target: SessionTarget,
    check: (conv: Conversation) => void,
    manager?: Transaction,
    id: string = newId(),
    flushLater = false,
  ): Promise<Written | null> {
    const skeleton = MessageResponse.of(
      Object.assign(new Message(), { ...draft, id, conversationId, sessionId: null, createdAt: new Date(0) }),
    );
    const written = await this.messages.append(
      workspaceId,
      conversationId,
      id,
      draft,
      target,
      { message: skeleton, conversation_uuid: conversationId },
      { manager, requireAgent: draft.sender === 'customer', flushLater },
    );
    if (!written.conversation) throw AppException.notFound('Conversation');
    check(written.conversation);
    if (!written.message) return null;
    return {
      conversation: written.conversation,
      message: written.message,
      session: written.session ?? ({ id: written.message.sessionId } as Session),
      previousActivityMs: written.previousActivityAt?.getTime() ?? null,
    };
  }

  /** The same, in a transaction that opens the session (`open`, counting this message) when none is active. */
  private appendOpening(
    workspaceId: WorkspaceId,
    conversationId: string,
    draft: Draft,
    target: SessionTarget,
    check: (conv: Conversation) => void,
    open: (m: Transaction, conv: Conversation) => Promise<Session>,
    after?: (m: Transaction, message: Message) => Promise<void>,
    id: string = newId(),
  ): Promise<Written> {
    return this.unitOfWork.run(async (m) => {
      let written = await this.append(workspaceId, conversationId, draft, target, check, m, id);
      if (!written) {
        const conv = (await this.conversationsService.get(workspaceId, conversationId, m))!;
        const session = await open(m, conv);
        const into = { id: session.id, count: false };
        const fresh = (await this.append(workspaceId, conversationId, draft, into, check, m, id))!;
        written = { ...fresh, session, previousActivityMs: null };
      }
      await after?.(m, written.message);
      return written;
    });
  }
}
