import { v7 as uuidv7 } from 'uuid';
import type { DataSource, EntityManager } from 'typeorm';
import type { Channel } from '@/modules/conversations/channels';

/**
 * Rows of the conversation tables written straight into the database, as the conversation runtime would leave
 * them, so that analytics can be tested on known data.
 */
type Db = DataSource | EntityManager;

export interface ConversationSeed {
  channel: Channel;
  agentId?: string | null;
  contactId?: string | null;
  createdAt?: Date;
  closedAt?: Date | null;
}

export async function seedConversation(db: Db, workspaceId: string, c: ConversationSeed): Promise<string> {
  const id = uuidv7();
  await db.query(
    `INSERT INTO conversations (id, workspace_id, agent_id, contact_id, channel, status, closed_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, coalesce($8, now()))`,
    [
      id,
      workspaceId,
      c.agentId ?? null,
      c.contactId ?? null,
      c.channel,
      c.closedAt ? 'closed' : 'active',
      c.closedAt ?? null,
      c.createdAt ?? null,
    ],
  );
  return id;
}

export interface SessionSeed {
  conversationId: string;
  channel: Channel;
  agentId?: string | null;
  startedAt: Date;
  endedAt?: Date | null;
  endReason?: 'timeout' | 'closed' | 'call_ended' | null;
  messageCount?: number;
}

export async function seedSession(db: Db, workspaceId: string, s: SessionSeed): Promise<string> {
  const id = uuidv7();
  await db.query(
    `INSERT INTO sessions (id, workspace_id, conversation_id, agent_id, channel, status, started_at,
                           last_activity_at, ended_at, end_reason, message_count, timeout_ms)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 1800000)`,
    [
      id,
      workspaceId,
      s.conversationId,
      s.agentId ?? null,
      s.channel,
      s.endedAt ? 'ended' : 'active',
      s.startedAt,
      s.endedAt ?? s.startedAt,
      s.endedAt ?? null,
      s.endedAt ? (s.endReason ?? 'timeout') : null,
      s.messageCount ?? 0,
    ],
  );
  return id;
}

export interface MessageSeed {
  conversationId: string;
  sessionId?: string | null;
  agentId?: string | null;
  contactId?: string | null;
  channel: Channel;
  direction?: 'inbound' | 'outbound';
  sender?: 'customer' | 'agent' | 'system';
  content?: string;
  /** Omitted: the database's now(), i.e. the start of the inserting transaction. */
  createdAt?: Date;
  id?: string;
}

/** Inserts messages in one statement; returns their ids in the order given. */
export async function seedMessages(db: Db, workspaceId: string, list: MessageSeed[]): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < list.length; start += 500) {
    const chunk = list.slice(start, start + 500);
    const params: unknown[] = [];
    const values = chunk.map((m) => {
      const id = m.id ?? uuidv7();
      ids.push(id);
      params.push(
        id,
        workspaceId,
        m.conversationId,
        m.sessionId ?? null,
        m.agentId ?? null,
        m.contactId ?? null,
        m.channel,
        m.direction ?? 'inbound',
        m.sender ?? (m.direction === 'outbound' ? 'agent' : 'customer'),
        m.content ?? 'hello',
        m.createdAt ?? null,
      );
      const n = params.length;
      return `($${n - 10}, $${n - 9}, $${n - 8}, $${n - 7}, $${n - 6}, $${n - 5}, $${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}, coalesce($${n}::timestamptz, now()))`;
    });
    await db.query(
      `INSERT INTO messages (id, workspace_id, conversation_id, session_id, agent_id, contact_id, channel,
                             direction, sender, content, created_at)
       VALUES ${values.join(', ')}`,
      params,
    );
  }
  return ids;
}

export interface EvaluationSeed {
  sessionId: string;
  conversationId: string;
  channel: Channel;
  agentId?: string | null;
  feature: string;
  type: 'boolean' | 'score' | 'label' | 'text';
  value?: unknown;
  score?: number | null;
  label?: string | null;
  status?: 'completed' | 'failed' | 'skipped';
  createdAt?: Date;
}

export async function seedEvaluation(db: Db, workspaceId: string, e: EvaluationSeed): Promise<string> {
  const id = uuidv7();
  await db.query(
    `INSERT INTO evaluation_records (id, workspace_id, session_id, conversation_id, agent_id, channel, feature,
                                     type, value, score, label, status, settings_version, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 1, coalesce($13, now()))`,
    [
      id,
      workspaceId,
      e.sessionId,
      e.conversationId,
      e.agentId ?? null,
      e.channel,
      e.feature,
      e.type,
      e.value === undefined ? null : JSON.stringify(e.value),
      e.score ?? null,
      e.label ?? null,
      e.status ?? 'completed',
      e.createdAt ?? null,
    ],
  );
  return id;
}
