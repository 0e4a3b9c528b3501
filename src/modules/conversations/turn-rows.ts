import type { WorkspaceId } from '@/common/auth/workspace-id';
import { Conversation } from './conversation.entity';
import { Message } from './message.entity';
import { Session } from './session.entity';

/**
 * Column lists and row mappers for the turn path's hand-written statements: a turn reads and writes a handful of
 * rows, and mapping them here costs a fraction of building and hydrating the same statements through the ORM.
 */
export const CONVERSATION_COLUMNS = `id, created_at, updated_at, workspace_id, agent_id, contact_id, channel, status,
  source, phone, last_message_at, closed_at`;

export const SESSION_COLUMNS = `id, created_at, updated_at, workspace_id, conversation_id, agent_id, contact_id,
  channel, status, started_at, last_activity_at, ended_at, end_reason, evaluated_at, summary, message_count,
  timeout_ms, end_reported_at, memorized_at`;

export type Row = Record<string, unknown>;

export function conversationOf(r: Row): Conversation {
  return Object.assign(new Conversation(), {
    id: r.id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    workspaceId: r.workspace_id,
    agentId: r.agent_id,
    contactId: r.contact_id,
    channel: r.channel,
    status: r.status,
    source: r.source,
    phone: r.phone,
    lastMessageAt: r.last_message_at,
    closedAt: r.closed_at,
  });
}

/** A session from a row whose columns carry `prefix` (`s_` when selected beside other tables). */
export function sessionOf(r: Row, prefix = ''): Session {
  const v = (k: string) => r[prefix + k];
  return Object.assign(new Session(), {
    id: v('id'),
    createdAt: v('created_at'),
    updatedAt: v('updated_at'),
    workspaceId: v('workspace_id'),
    conversationId: v('conversation_id'),
    agentId: v('agent_id'),
    contactId: v('contact_id'),
    channel: v('channel'),
    status: v('status'),
    startedAt: v('started_at'),
    lastActivityAt: v('last_activity_at'),
    endedAt: v('ended_at'),
    endReason: v('end_reason'),
    evaluatedAt: v('evaluated_at'),
    summary: v('summary'),
    messageCount: v('message_count'),
    timeoutMs: v('timeout_ms'),
    endReportedAt: v('end_reported_at'),
    memorizedAt: v('memorized_at'),
  });
}

/** A message just written to a conversation (its agent, contact and channel are the conversation's). */
export function messageOf(
  workspaceId: WorkspaceId,
  id: string,
  sessionId: string,
  conversation: Conversation,
  m: Pick<Message, 'direction' | 'sender' | 'messageType' | 'content' | 'createdAt' | 'updatedAt'>,
): Message {
  return Object.assign(new Message(), {
    ...m,
    id,
    workspaceId,
    conversationId: conversation.id,
    sessionId,
    agentId: conversation.agentId,
    contactId: conversation.contactId,
    channel: conversation.channel,
  });
}
