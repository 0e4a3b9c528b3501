import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import { Conversation } from './conversation.entity';
import { Message } from './message.entity';
import { Session } from './session.entity';

@Injectable()
export class ConversationsRepository extends WorkspaceScopedRepository<Conversation> {
  constructor(@InjectRepository(Conversation) repo: Repository<Conversation>) {
    super(repo);
  }

  /** The conversation, locked for the rest of the transaction so turns of one conversation run one at a time. */
  lock(workspaceId: string, id: string, manager: EntityManager): Promise<Conversation | null> {
    return this.query(workspaceId, 'c', manager)
      .andWhere('c.id = :id', { id })
      .setLock('pessimistic_write')
      .getOne();
  }
}

@Injectable()
export class MessagesRepository extends WorkspaceScopedRepository<Message> {
  constructor(@InjectRepository(Message) repo: Repository<Message>) {
    super(repo);
  }

  /** Marks an agent reply as cut by the customer (barge-in). */
  async markInterrupted(workspaceId: string, id: string): Promise<void> {
    await this.sql(`UPDATE messages SET interrupted = true WHERE workspace_id = $1 AND id = $2`, [
      workspaceId,
      id,
    ]);
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
