import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { Session } from './session.entity';
import { Row, SESSION_COLUMNS, sessionOf } from './turn-rows';

/** Session rows: the filtered list, the active session, its end and its once-only markers, recent summaries. */
@Injectable()
export class SessionsRepository extends WorkspaceScopedRepository<Session> {
  constructor(@InjectRepository(Session) repo: Repository<Session>) {
    super(repo);
  }

  /** One page of the workspace's sessions, newest first, with the list filters. */
  list(
    workspaceId: WorkspaceId,
    f: { agent_uuid?: string; conversation_uuid?: string; status?: string; from?: string; to?: string },
    page: { skip: number; take: number },
  ): Promise<[Session[], number]> {
    const qb = this.query(workspaceId, 's');
    if (f.agent_uuid) qb.andWhere('s.agent_id = :agent', { agent: f.agent_uuid });
    if (f.conversation_uuid) qb.andWhere('s.conversation_id = :conv', { conv: f.conversation_uuid });
    if (f.status) qb.andWhere('s.status = :status', { status: f.status });
    if (f.from) qb.andWhere('s.started_at >= :from', { from: new Date(f.from) });
    if (f.to) qb.andWhere('s.started_at < :to', { to: new Date(f.to) });
    return qb
      .orderBy('s.started_at', 'DESC')
      .addOrderBy('s.id', 'DESC')
      .skip(page.skip)
      .take(page.take)
      .getManyAndCount();
  }

  active(workspaceId: WorkspaceId, conversationId: string, manager?: EntityManager): Promise<Session | null> {
    return this.findOne(workspaceId, { conversationId, status: 'active' }, {}, manager);
  }

  /** Ends the session if it is still active; false when it had ended already (the caller then does nothing). */
  async end(
    workspaceId: WorkspaceId,
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
    workspaceId: WorkspaceId,
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

  async markMemorized(workspaceId: WorkspaceId, id: string): Promise<boolean> {
    const [rows] = await this.sql<[unknown[], number]>(
      `UPDATE sessions SET memorized_at = now() WHERE workspace_id = $1 AND id = $2 AND memorized_at IS NULL RETURNING id`,
      [workspaceId, id],
    );
    return rows.length === 1;
  }

  /** Recent ended sessions with a summary for this contact (memorized context). */
  async recentSummaries(workspaceId: WorkspaceId, contactId: string, limit: number): Promise<Session[]> {
    // Hand-written: read on a turn's way to the model.
    const rows = await this.sql<Row[]>(
      `SELECT ${SESSION_COLUMNS} FROM sessions
        WHERE workspace_id = $1 AND contact_id = $2 AND summary IS NOT NULL
        ORDER BY ended_at DESC LIMIT $3`,
      [workspaceId, contactId, limit],
    );
    return rows.map((r) => sessionOf(r));
  }
}
