import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { Conversation } from './conversation.entity';
import type { MessageViewRow } from './dto/message-view.response';

/**
 * What a conversation's answer adds from its channel: WhatsApp's window and who handles it (a person or the AI); and
 * its messages with their provider side.
 */
@Injectable()
export class ConversationViewsRepository extends WorkspaceScopedRepository<Conversation> {
  constructor(@InjectRepository(Conversation) repo: Repository<Conversation>) {
    super(repo);
  }

  /**
   * Messages (`m`) with their provider side (`p`, absent for a message that never went through a provider) as
   * `MessageViewRow`s, without a WHERE: every reader of a message's answer (one or a page) completes this statement.
   */
  static readonly MESSAGE_VIEW_SQL = `
    SELECT m.id AS uuid, m.conversation_id AS conversation_uuid, m.session_id AS session_uuid,
           m.agent_id AS agent_uuid, m.contact_id AS contact_uuid, m.channel, m.direction, m.sender,
           m.message_type, m.content, m.interrupted, m.latency, m.created_at, p.from_address AS "from", p.to_address AS "to",
           p.provider, p.provider_message_id, p.delivery_status, p.error, p.status_updated_at, p.template,
           p.metadata, p.is_simulation, p.phone_number_id AS phone_number_uuid
      FROM messages m LEFT JOIN provider_messages p ON p.id = m.id AND p.workspace_id = m.workspace_id`;

  /** A page of a conversation's messages, oldest first, each with its provider side, and how many it has. */
  async messages(
    workspaceId: WorkspaceId,
    conversationId: string,
    page: { skip: number; take: number },
  ): Promise<[MessageViewRow[], number]> {
    const [rows, [{ total }]] = await Promise.all([
      this.sql<MessageViewRow[]>(
        `${ConversationViewsRepository.MESSAGE_VIEW_SQL}
          WHERE m.workspace_id = $1 AND m.conversation_id = $2
          ORDER BY m.created_at, m.id LIMIT $3 OFFSET $4`,
        [workspaceId, conversationId, page.take, page.skip],
      ),
      this.sql<{ total: number }[]>(
        `SELECT count(*)::int AS total FROM messages WHERE workspace_id = $1 AND conversation_id = $2`,
        [workspaceId, conversationId],
      ),
    ]);
    return [rows, total];
  }

  /**
   * When the customer last wrote in each conversation, as its provider received it (the start of WhatsApp's 24-hour
   * window); conversations the customer never wrote in are absent. Read per conversation in message order.
   */
  async lastInbound(workspaceId: WorkspaceId, ids: string[]): Promise<Map<string, Date>> {
    if (!ids.length) return new Map();
    const rows = await this.sql<{ id: string; at: Date }[]>(
      `SELECT c.id, last.at FROM unnest($2::uuid[]) AS c(id)
         CROSS JOIN LATERAL (
           SELECT pm.created_at AS at FROM messages m JOIN provider_messages pm ON pm.id = m.id
            WHERE m.conversation_id = c.id AND m.workspace_id = $1 AND m.direction = 'inbound'
              AND pm.direction = 'inbound'
            ORDER BY m.created_at DESC LIMIT 1) last`,
      [workspaceId, ids],
    );
    return new Map(rows.map((r) => [r.id, r.at]));
  }

  /**
   * The conversations among `ids` a person has taken over: a text conversation whose line a guard `forward` handed
   * to a human, or a call forwarded to a number or an extension (a thread's and a call's id are their conversation's).
   */
  async handedToHuman(workspaceId: WorkspaceId, ids: string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const rows = await this.sql<{ id: string }[]>(
      `SELECT id FROM messaging_threads WHERE workspace_id = $1 AND id = ANY($2::uuid[]) AND handled_by = 'Human'
       UNION ALL
       SELECT id FROM calls WHERE workspace_id = $1 AND id = ANY($2::uuid[]) AND handled_by = 'Human'`,
      [workspaceId, ids],
    );
    return new Set(rows.map((r) => r.id));
  }
}
