import { entityOf } from '@/common/persistence/rows';
import { ConversationViewsRepository } from './conversation-views.repository';
import { Message } from './message.entity';
import type { Row } from './turn-rows';

/**
 * What the conversations module offers other modules besides the providers its module exports: reads of its
 * messages as parts of the caller's own statement (a call's turn reads its call and the conversation's last
 * messages in one statement; a provider message's answer is a message with its provider side), and their mapping.
 */

/**
 * A sub-select of the `limit` last messages of the conversation whose row is `alias` (a `calls` or `conversations`
 * row: same workspace, `id` = the conversation), newest first, as JSON; read with `recentMessagesOf`.
 */
export function recentMessagesJsonSql(alias: string, limit: number): string {
  return `(SELECT coalesce(json_agg(h), '[]'::json) FROM (SELECT * FROM messages
               WHERE workspace_id = ${alias}.workspace_id AND conversation_id = ${alias}.id
               ORDER BY created_at DESC, id DESC LIMIT ${Math.trunc(limit)}) h)`;
}

/** The messages of `recentMessagesJsonSql`, oldest first (as the conversation's own reads answer them). */
export function recentMessagesOf(rows: Row[]): Message[] {
  return rows.reverse().map((r) =>
    entityOf(Message, {
      ...r,
      created_at: new Date(r.created_at as string),
      updated_at: new Date(r.updated_at as string),
    }),
  );
}

/**
 * Messages (`m`) with their provider side (`p`) as `MessageViewRow`s (`dto/message-view.response`), without a
 * WHERE: every reader of a message's answer completes this statement.
 */
export const MESSAGE_VIEW_SQL = ConversationViewsRepository.MESSAGE_VIEW_SQL;
