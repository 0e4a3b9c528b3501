import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import { Conversation } from './conversation.entity';

/** What a conversation's answer adds from its channel: WhatsApp's window and who handles it (a person or the AI). */
@Injectable()
export class ConversationViewsRepository extends WorkspaceScopedRepository<Conversation> {
  constructor(@InjectRepository(Conversation) repo: Repository<Conversation>) {
    super(repo);
  }

  /**
   * When the customer last wrote in each conversation, as its provider received it (the start of WhatsApp's 24-hour
   * window); conversations the customer never wrote in are absent. Read per conversation in message order.
   */
  async lastInbound(workspaceId: string, ids: string[]): Promise<Map<string, Date>> {
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
  async handedToHuman(workspaceId: string, ids: string[]): Promise<Set<string>> {
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
