import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import { Conversation } from './conversation.entity';
import { Message } from './message.entity';
import { Session } from './session.entity';
import {
  CONVERSATION_COLUMNS,
  conversationOf,
  messageOf,
  NewMessage,
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
  message: Message;
  /** The active session after the write (an `active` target only). */
  session: Session | null;
  /** Its idle clock before the write (an `active` target only). */
  previousActivityAt: Date | null;
  lastMessageAt: Date;
  conversationUpdatedAt: Date;
}

const S_COLUMNS = SESSION_COLUMNS.split(',')
  .map((c) => `s.${c.trim()} AS s_${c.trim()}`)
  .join(', ');
const INSERT_MESSAGE = `INSERT INTO messages (id, workspace_id, conversation_id, session_id, agent_id, contact_id,
  channel, direction, sender, message_type, content)`;
const MESSAGE_VALUES = `$3::uuid, $1::uuid, $2::uuid, SESSION, $4::uuid, $5::uuid, $6, $7, $8, $9, $10`;
const TOUCH_CONVERSATION = `c AS (UPDATE conversations SET last_message_at = m.created_at, updated_at = now() FROM m
   WHERE conversations.workspace_id = $1 AND conversations.id = $2
   RETURNING conversations.last_message_at, conversations.updated_at)`;

/** A message into the active session: the session counted (and its idle clock moved), the conversation touched. */
const APPEND_ACTIVE = `WITH prev AS (
  SELECT id, last_activity_at FROM sessions WHERE workspace_id = $1 AND conversation_id = $2 AND status = 'active'),
s AS (UPDATE sessions SET message_count = message_count + 1,
       last_activity_at = COALESCE($11::timestamptz, last_activity_at), timeout_ms = COALESCE($12::int, timeout_ms),
       updated_at = now()
   WHERE workspace_id = $1 AND id = (SELECT id FROM prev) AND status = 'active' RETURNING ${SESSION_COLUMNS}),
m AS (${INSERT_MESSAGE} SELECT ${MESSAGE_VALUES.replace('SESSION', 's.id')} FROM s RETURNING created_at, updated_at),
${TOUCH_CONVERSATION}
SELECT ${S_COLUMNS}, prev.last_activity_at AS previous_activity_at, m.created_at AS m_created_at,
       m.updated_at AS m_updated_at, c.last_message_at AS c_last_message_at, c.updated_at AS c_updated_at
  FROM s, prev, m, c`;

/** A message into a given session, counted there when asked and still active; the conversation touched. */
const APPEND_TO_SESSION = `WITH s AS (UPDATE sessions SET message_count = message_count + 1, updated_at = now()
   WHERE workspace_id = $1 AND id = $11 AND status = 'active' AND $12::boolean RETURNING id),
m AS (${INSERT_MESSAGE} VALUES (${MESSAGE_VALUES.replace('SESSION', '$11::uuid')}) RETURNING created_at, updated_at),
${TOUCH_CONVERSATION}
SELECT m.created_at AS m_created_at, m.updated_at AS m_updated_at, c.last_message_at AS c_last_message_at,
       c.updated_at AS c_updated_at, (SELECT count(*) FROM s)::int AS counted
  FROM m, c`;

@Injectable()
export class ConversationsRepository extends WorkspaceScopedRepository<Conversation> {
  constructor(@InjectRepository(Conversation) repo: Repository<Conversation>) {
    super(repo);
  }

  /** The conversation, locked for the rest of the transaction so turns of one conversation run one at a time. */
  async lock(workspaceId: string, id: string, manager: EntityManager): Promise<Conversation | null> {
    const rows = await this.sql<Row[]>(
      `SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE workspace_id = $1 AND id = $2 FOR UPDATE`,
      [workspaceId, id],
      manager,
    );
    return rows.length ? conversationOf(rows[0]) : null;
  }
}

@Injectable()
export class MessagesRepository extends WorkspaceScopedRepository<Message> {
  constructor(@InjectRepository(Message) repo: Repository<Message>) {
    super(repo);
  }

  /**
   * Appends a message to a conversation locked by the caller, in one statement: the message, its session's count
   * (and idle clock), the conversation's last message time. Null when an `active` target finds no active session:
   * the caller opens one and appends to it by id.
   */
  async append(
    workspaceId: string,
    id: string,
    message: NewMessage,
    target: SessionTarget,
    manager: EntityManager,
  ): Promise<Appended | null> {
    const values = [
      workspaceId,
      message.conversationId,
      id,
      message.agentId,
      message.contactId,
      message.channel,
      message.direction,
      message.sender,
      message.messageType,
      message.content,
    ];
    if ('active' in target) {
      const rows = await this.sql<Row[]>(
        APPEND_ACTIVE,
        [...values, target.activityAt ?? null, target.timeoutMs ?? null],
        manager,
      );
      if (!rows.length) return null;
      const session = sessionOf(rows[0], 's_');
      return {
        message: messageOf(workspaceId, id, session.id, message, rows[0]),
        session,
        previousActivityAt: rows[0].previous_activity_at as Date,
        lastMessageAt: rows[0].c_last_message_at as Date,
        conversationUpdatedAt: rows[0].c_updated_at as Date,
      };
    }
    const [row] = await this.sql<Row[]>(APPEND_TO_SESSION, [...values, target.id, target.count], manager);
    return {
      message: messageOf(workspaceId, id, target.id, message, row),
      session: null,
      previousActivityAt: null,
      lastMessageAt: row.c_last_message_at as Date,
      conversationUpdatedAt: row.c_updated_at as Date,
    };
  }

  /** A session's transcript in order. */
  transcript(workspaceId: string, sessionId: string): Promise<Message[]> {
    return this.find(workspaceId, { where: { sessionId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** The latest messages of a conversation, oldest first (the reply's context window). */
  async recent(
    workspaceId: string,
    conversationId: string,
    limit: number,
    manager?: EntityManager,
  ): Promise<Message[]> {
    const rows = await this.find(
      workspaceId,
      { where: { conversationId }, order: { createdAt: 'DESC', id: 'DESC' }, take: limit },
      manager,
    );
    return rows.reverse();
  }
}

@Injectable()
export class SessionsRepository extends WorkspaceScopedRepository<Session> {
  constructor(@InjectRepository(Session) repo: Repository<Session>) {
    super(repo);
  }

  active(workspaceId: string, conversationId: string, manager?: EntityManager): Promise<Session | null> {
    return this.findOne(workspaceId, { conversationId, status: 'active' }, {}, manager);
  }

  /** Ends the session if it is still active; false when it had ended already (the caller then does nothing). */
  async end(
    workspaceId: string,
    id: string,
    reason: Session['endReason'],
    at: Date,
    manager: EntityManager,
  ): Promise<boolean> {
    const result = await manager
      .createQueryBuilder()
      .update(Session)
      .set({ status: 'ended', endReason: reason, endedAt: at })
      .where('workspace_id = :workspaceId AND id = :id AND status = :active', {
        workspaceId,
        id,
        active: 'active',
      })
      .execute();
    return (result.affected ?? 0) === 1;
  }

  /** Sets the end-report marker (and the evaluation's outcome) once; false when it was set already. */
  async markReported(
    workspaceId: string,
    id: string,
    outcome: { evaluated: boolean; summary: string | null },
    manager: EntityManager,
  ): Promise<boolean> {
    const [rows] = (await manager.query(
      `UPDATE sessions SET end_reported_at = now(), updated_at = now(),
         evaluated_at = CASE WHEN $3 THEN now() ELSE evaluated_at END, summary = COALESCE($4, summary)
       WHERE workspace_id = $1 AND id = $2 AND end_reported_at IS NULL RETURNING id`,
      [workspaceId, id, outcome.evaluated, outcome.summary],
    )) as [unknown[], number];
    return rows.length === 1;
  }

  async markMemorized(workspaceId: string, id: string): Promise<boolean> {
    const [rows] = await this.sql<[unknown[], number]>(
      `UPDATE sessions SET memorized_at = now() WHERE workspace_id = $1 AND id = $2 AND memorized_at IS NULL RETURNING id`,
      [workspaceId, id],
    );
    return rows.length === 1;
  }

  /** Recent ended sessions with a summary for this contact (memorized context). */
  recentSummaries(workspaceId: string, contactId: string, limit: number): Promise<Session[]> {
    return this.query(workspaceId, 's')
      .andWhere('s.contact_id = :contactId', { contactId })
      .andWhere('s.summary IS NOT NULL')
      .orderBy('s.ended_at', 'DESC')
      .limit(limit)
      .getMany();
  }
}
