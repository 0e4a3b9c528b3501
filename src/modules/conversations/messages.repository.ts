import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { newId } from '@/common/persistence/base.entity';
import { entityOf } from '@/common/persistence/rows';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import { currentTraceparent } from '@/common/telemetry/trace-context';
import { NOTIFY_OUTBOX } from '@/modules/events/outbox.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { VOICE_CHANNELS } from './channels';
import type { Conversation } from './conversation.entity';
import { Message, MessageLatency } from './message.entity';
import type { Session } from './session.entity';
import {
  CONVERSATION_COLUMNS,
  conversationOf,
  messageOf,
  Row,
  SESSION_COLUMNS,
  sessionOf,
} from './turn-rows';

/** Where a new message goes and what it does to its session (see MessagesRepository.append). */
export type SessionTarget =
  /** The conversation's active session, counted; with `activityAt` (a customer's turn) its idle clock moves too. */
  | { active: true; activityAt?: Date; timeoutMs?: number }
  /** That session, counted when `count` and it is still active. */
  | { id: string; count: boolean };

export interface Appended {
  /** The conversation as locked (before the write); null when it is not in the workspace. */
  conversation: Conversation | null;
  /** Null when nothing was written: an `active` target found no active session, or the conversation is closed. */
  message: Message | null;
  /** The active session after the write (an `active` target only). */
  session: Session | null;
  /** Its idle clock before the write (an `active` target only). */
  previousActivityAt: Date | null;
}

const S_COLUMNS = SESSION_COLUMNS.split(',')
  .map((c) => `s.${c.trim()} AS s_${c.trim()}`)
  .join(', ');
/**
 * The conversation locked first: turns of one conversation run one at a time. `commitNow` false: the statement's own
 * transaction commits without waiting for the WAL flush (see `append`).
 */
const CONV = (commitNow: boolean) =>
  `conv AS (SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE workspace_id = $1 AND id = $2${
    commitNow ? '' : ` AND set_config('synchronous_commit', 'off', true) IS NOT NULL`
  } FOR UPDATE)`;
/** The message copies the agent, contact and channel of the locked conversation. */
const INSERT_MESSAGE = (session: string, from: string) => `m AS (INSERT INTO messages (id, workspace_id,
    conversation_id, session_id, agent_id, contact_id, channel, direction, sender, message_type, content)
  SELECT $3::uuid, $1::uuid, $2::uuid, ${session}, conv.agent_id, conv.contact_id, conv.channel, $4, $5, $6, $7
    FROM ${from} RETURNING created_at, updated_at)`;
const TOUCH_CONVERSATION = `c AS (UPDATE conversations SET last_message_at = m.created_at, updated_at = now() FROM m
   WHERE conversations.workspace_id = $1 AND conversations.id = $2
   RETURNING conversations.last_message_at, conversations.updated_at)`;
const WRITTEN = `m.created_at AS m_created_at, m.updated_at AS m_updated_at, c.last_message_at AS c_last_message_at,
  c.updated_at AS c_updated_at`;

/**
 * The message's `conversation_update` event in the same statement (so the statement needs no transaction of its
 * own): `$10` is the event's data as the service builds it, completed here with what only the write knows (the
 * session and the message's time, formatted as JavaScript's toISOString). Its RETURNING notifies the dispatchers.
 * `trace`: the parameter of the current trace (null with tracing off), which the event's deliveries continue.
 */
const EVENT = (session: string, trace: string) => `e AS (
  INSERT INTO outbox_events (id, workspace_id, type, agent_id, data, trace_parent)
  SELECT $11::uuid, $1::uuid, 'conversation_update', conv.agent_id,
         jsonb_set(jsonb_set($10::jsonb, '{message,session_uuid}', to_jsonb(${session})), '{message,created_at}',
                   to_jsonb(to_char(m.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))),
         ${trace}::text
    FROM conv, m RETURNING ${NOTIFY_OUTBOX})`;

/**
 * A message into the active session of an open conversation (with an agent, when `$12`): the session counted (and
 * its idle clock moved), the conversation touched, the event written. The session is read with the statement's
 * snapshot: when a concurrent turn ended or opened one meanwhile, nothing is written and the caller opens or finds
 * it in a transaction of its own.
 */
const APPEND_ACTIVE = (commitNow: boolean) => `WITH ${CONV(commitNow)},
prev AS (
  SELECT id, last_activity_at FROM sessions WHERE workspace_id = $1 AND conversation_id = $2 AND status = 'active'),
s AS (UPDATE sessions SET message_count = message_count + 1,
       last_activity_at = COALESCE($8::timestamptz, last_activity_at), timeout_ms = COALESCE($9::int, timeout_ms),
       updated_at = now()
   WHERE workspace_id = $1 AND id = (SELECT id FROM prev) AND status = 'active'
     AND EXISTS (SELECT 1 FROM conv WHERE status <> 'closed' AND (agent_id IS NOT NULL OR NOT $12::boolean))
   RETURNING ${SESSION_COLUMNS}),
${INSERT_MESSAGE('s.id', 's, conv')},
${TOUCH_CONVERSATION},
${EVENT('(SELECT id FROM s)', '$13')}
SELECT conv.*, ${S_COLUMNS}, prev.last_activity_at AS previous_activity_at, ${WRITTEN},
       (SELECT count(*) FROM e)::int AS events
  FROM conv LEFT JOIN s ON true LEFT JOIN prev ON true LEFT JOIN m ON true LEFT JOIN c ON true`;

/** A message into a given session, counted there when asked and still active; the conversation touched. */
const APPEND_TO_SESSION = (commitNow: boolean) => `WITH ${CONV(commitNow)},
s AS (UPDATE sessions SET message_count = message_count + 1, updated_at = now()
   WHERE workspace_id = $1 AND id = $8 AND status = 'active' AND $9::boolean AND EXISTS (SELECT 1 FROM conv)
   RETURNING id),
${INSERT_MESSAGE('$8::uuid', 'conv')},
${TOUCH_CONVERSATION},
${EVENT('$8::uuid', '$12')}
SELECT conv.*, ${WRITTEN}, (SELECT count(*) FROM s)::int AS counted, (SELECT count(*) FROM e)::int AS events
  FROM conv LEFT JOIN m ON true LEFT JOIN c ON true`;
const APPEND_ACTIVE_SQL: Record<string, string> = { true: APPEND_ACTIVE(true), false: APPEND_ACTIVE(false) };
const APPEND_TO_SESSION_SQL: Record<string, string> = {
  true: APPEND_TO_SESSION(true),
  false: APPEND_TO_SESSION(false),
};

/** Message rows: the turn's one-statement append (with its session, conversation and event), timings, reads. */
@Injectable()
export class MessagesRepository extends WorkspaceScopedRepository<Message> {
  constructor(@InjectRepository(Message) repo: Repository<Message>) {
    super(repo);
  }

  /**
   * Appends a message to a conversation in one statement, inside the caller's transaction or as one of its own:
   * the conversation locked, the message (copying its agent, contact and channel), its session's count (and idle
   * clock), the conversation's last message time, and its `conversation_update` event (`eventData`, completed with
   * the session and the message's time). The conversation answers as locked, with the write's times.
   * `flushLater` (outside a transaction only): the statement commits without waiting for its WAL flush, for a
   * message the caller follows with a synchronous commit before it answers anyone (a later flush writes out every
   * earlier commit, so the message is then as durable as that one).
   */
  async append(
    workspaceId: WorkspaceId,
    conversationId: string,
    id: string,
    message: Pick<Message, 'direction' | 'sender' | 'messageType' | 'content'>,
    target: SessionTarget,
    eventData: Record<string, unknown>,
    options: { requireAgent?: boolean; manager?: EntityManager; flushLater?: boolean } = {},
  ): Promise<Appended> {
    const values = [
      workspaceId,
      conversationId,
      id,
      message.direction,
      message.sender,
      message.messageType,
      message.content,
    ];
    const event = [JSON.stringify(eventData), newId()];
    const trace = currentTraceparent();
    const active = 'active' in target;
    const commitNow = !options.flushLater || !!options.manager;
    const [row] = await this.sql<Row[]>(
      active ? APPEND_ACTIVE_SQL[String(commitNow)] : APPEND_TO_SESSION_SQL[String(commitNow)],
      active
        ? [
            ...values,
            target.activityAt ?? null,
            target.timeoutMs ?? null,
            ...event,
            !!options.requireAgent,
            trace,
          ]
        : [...values, target.id, target.count, ...event, trace],
      options.manager,
    );
    if (!row) return { conversation: null, message: null, session: null, previousActivityAt: null };
    const conversation = conversationOf(row);
    const session = active && row.s_id ? sessionOf(row, 's_') : null;
    if (!row.m_created_at) return { conversation, message: null, session, previousActivityAt: null };
    const written = messageOf(workspaceId, id, session?.id ?? (target as { id: string }).id, conversation, {
      ...message,
      createdAt: row.m_created_at as Date,
      updatedAt: row.m_updated_at as Date,
    });
    conversation.lastMessageAt = row.c_last_message_at as Date;
    conversation.updatedAt = row.c_updated_at as Date;
    return {
      conversation,
      message: written,
      session,
      previousActivityAt: (row.previous_activity_at as Date | undefined) ?? null,
    };
  }

  /** Marks an agent reply as cut by the customer (barge-in). */
  async markInterrupted(workspaceId: WorkspaceId, id: string): Promise<void> {
    await this.sql(`UPDATE messages SET interrupted = true WHERE workspace_id = $1 AND id = $2`, [
      workspaceId,
      id,
    ]);
  }

  /**
   * Stores the timing of an agent's reply on a call (a voice channel). Answers the reply's agent, or null when there is
   * no such reply in the workspace (an unknown id, a customer's or system message, a message of a text channel).
   */
  async setLatency(
    workspaceId: WorkspaceId,
    messageId: string,
    latency: MessageLatency,
  ): Promise<{ agentId: string | null } | null> {
    const [rows] = await this.sql<[{ agent_id: string | null }[], number]>(
      `UPDATE messages SET latency = $3::jsonb
        WHERE workspace_id = $1 AND id = $2 AND sender = 'agent' AND channel = ANY($4::varchar[])
        RETURNING agent_id`,
      [workspaceId, messageId, JSON.stringify(latency), [...VOICE_CHANNELS]],
    );
    return rows.length ? { agentId: rows[0].agent_id } : null;
  }

  /** A session's transcript in order. */
  transcript(workspaceId: WorkspaceId, sessionId: string): Promise<Message[]> {
    return this.find(workspaceId, { where: { sessionId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** The latest messages of a conversation, oldest first (the reply's context window). */
  async recent(
    workspaceId: WorkspaceId,
    conversationId: string,
    limit: number,
    manager?: EntityManager,
  ): Promise<Message[]> {
    const rows = await this.sql<Row[]>(
      `SELECT * FROM messages WHERE workspace_id = $1 AND conversation_id = $2
        ORDER BY created_at DESC, id DESC LIMIT $3`,
      [workspaceId, conversationId, limit],
      manager,
    );
    return rows.reverse().map((r) => entityOf(Message, r));
  }
}
