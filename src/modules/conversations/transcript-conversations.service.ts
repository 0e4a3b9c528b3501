import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { ConversationsRepository } from './conversations.repository';
import { MessagesRepository } from './messages.repository';
import { ConversationsService } from './conversations.service';
import type { MessageSender } from './message.entity';
import { SessionsService } from './sessions.service';

export interface TranscriptTurn {
  sender: Extract<MessageSender, 'customer' | 'agent'>;
  content: string;
}

export interface RecordedTranscript {
  conversationId: string;
  sessionId: string;
}

/**
 * A recorded call turned into a conversation after the fact (a transcription with a QA agent): channel `phone`,
 * one session holding every turn, ended at once so the built evaluation runs the agent's `voice` features.
 */
@Injectable()
export class TranscriptConversationsService {
  constructor(
    private readonly conversations: ConversationsService,
    private readonly conversationRows: ConversationsRepository,
    private readonly messages: MessagesRepository,
    private readonly sessions: SessionsService,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  async record(
    workspaceId: WorkspaceId,
    input: { agentId: string; contactId: string | null; phone: string | null; turns: TranscriptTurn[] },
  ): Promise<RecordedTranscript> {
    const result = await this.unitOfWork.run(async (m) => {
      const conv = await this.conversations.insert(m, workspaceId, {
        agentId: input.agentId,
        channel: 'phone',
        source: 'transcription',
        contactId: input.contactId ?? undefined,
        phone: input.phone ?? undefined,
      });
      const now = new Date();
      const { session } = await this.sessions.touch(m, conv, now, 1000);
      session.messageCount = input.turns.length;
      for (const t of input.turns) {
        await this.messages.save(
          workspaceId,
          this.messages.build(workspaceId, {
            conversationId: conv.id,
            sessionId: session.id,
            agentId: conv.agentId,
            contactId: conv.contactId,
            channel: conv.channel,
            direction: t.sender === 'customer' ? 'inbound' : 'outbound',
            sender: t.sender,
            messageType: 'text',
            content: t.content,
          }),
          m,
        );
      }
      conv.lastMessageAt = now;
      await this.conversationRows.save(workspaceId, conv, m);
      const closed = await this.conversations.closeLocked(m, workspaceId, conv.id, 'call_ended');
      return { conversationId: conv.id, sessionId: closed.endedSession ?? session.id };
    });
    await this.sessions.queueEvaluation(workspaceId, result.sessionId);
    return result;
  }
}
