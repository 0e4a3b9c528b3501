import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import { EntityManager } from 'typeorm';
import { AppException } from '@/common/errors/app.exception';
import { pageOf, Page, skipTake } from '@/common/http/pagination';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import type { Conversation } from './conversation.entity';
import { ListSessionsQuery } from './dto/requests';
import { SessionResponse } from './dto/responses';
import { MessagesRepository, SessionsRepository } from './conversations.repository';
import type { Message } from './message.entity';
import type { Session, SessionEndReason } from './session.entity';

type TimeoutJob = JobPayloads['sessions']['session-timeout'];
type EvaluateJob = JobPayloads['evaluation']['evaluate-session'];

export const timeoutJobId = (sessionId: string, activityMs: number): string =>
  `timeout:${sessionId}:${activityMs}`;
export const evaluationJobId = (sessionId: string): string => `evaluate:${sessionId}`;

/**
 * Sessions: opened by the first customer turn, kept alive by each turn, ended by idleness (a Bull delayed job per
 * turn, so timers survive restarts and work across replicas), by close, or when a call ends. An ended session is
 * queued for evaluation exactly once (the job id is the session's).
 */
@Injectable()
export class SessionsService {
  private readonly logger = new Logger(SessionsService.name);

  constructor(
    private readonly sessions: SessionsRepository,
    private readonly messages: MessagesRepository,
    private readonly unitOfWork: UnitOfWork,
    @InjectQueue(QUEUES.sessions) private readonly timeouts: Queue<TimeoutJob>,
    @InjectQueue(QUEUES.evaluation) private readonly evaluations: Queue<EvaluateJob>,
  ) {}

  /** The active session of the conversation, opened if there is none; its activity moved to `at`. */
  async touch(
    manager: EntityManager,
    conversation: Conversation,
    at: Date,
    timeoutMs: number,
  ): Promise<{ session: Session; previousActivityMs: number | null }> {
    const ws = conversation.workspaceId;
    const current = await this.sessions.active(ws, conversation.id, manager);
    if (current) {
      const previousActivityMs = current.lastActivityAt.getTime();
      current.lastActivityAt = at;
      current.timeoutMs = timeoutMs;
      current.messageCount += 1;
      return { session: await this.sessions.save(ws, current, manager), previousActivityMs };
    }
    const session = this.sessions.build(ws, {
      conversationId: conversation.id,
      agentId: conversation.agentId,
      contactId: conversation.contactId,
      channel: conversation.channel,
      status: 'active',
      startedAt: at,
      lastActivityAt: at,
      endedAt: null,
      endReason: null,
      evaluatedAt: null,
      summary: null,
      messageCount: 1,
      timeoutMs,
      endReportedAt: null,
      memorizedAt: null,
    });
    return { session: await this.sessions.save(ws, session, manager), previousActivityMs: null };
  }

  /** The active session for an agent's message outside a turn: opened if none, else counted without moving idleness. */
  async touchForAgent(
    manager: EntityManager,
    conversation: Conversation,
    at: Date,
    timeoutMs: number,
  ): Promise<Session> {
    const current = await this.sessions.active(conversation.workspaceId, conversation.id, manager);
    if (!current) return (await this.touch(manager, conversation, at, timeoutMs)).session;
    await this.countAgentMessage(manager, current);
    return current;
  }

  /** Counts an agent message in the session without moving the customer's idle clock. */
  async countAgentMessage(manager: EntityManager, session: Session): Promise<void> {
    session.messageCount += 1;
    await this.sessions.save(session.workspaceId, session, manager);
  }

  /** After the turn commits: a timer for this activity; the timer of the previous activity is dropped. */
  async scheduleTimeout(session: Session, previousActivityMs: number | null): Promise<void> {
    const activityMs = session.lastActivityAt.getTime();
    await this.timeouts.add(
      'session-timeout',
      { workspaceId: session.workspaceId, sessionId: session.id, activityMs },
      { jobId: timeoutJobId(session.id, activityMs), delay: session.timeoutMs },
    );
    if (previousActivityMs !== null) {
      const stale = await this.timeouts.getJob(timeoutJobId(session.id, previousActivityMs));
      // A stale timer that already started finds newer activity and does nothing, so failing to remove it is harmless.
      await stale?.remove().catch(() => undefined);
    }
  }

  /** The timer fired: end the session if the customer is still idle past its timeout. */
  async endIfIdle(workspaceId: string, sessionId: string): Promise<boolean> {
    const ended = await this.unitOfWork.run(async (m) => {
      const session = await this.sessions.findOne(workspaceId, { id: sessionId }, {}, m);
      if (!session || session.status !== 'active') return false;
      if (session.lastActivityAt.getTime() + session.timeoutMs > Date.now()) return false; // newer activity
      return this.sessions.end(workspaceId, sessionId, 'timeout', new Date(), m);
    });
    if (ended) await this.queueEvaluation(workspaceId, sessionId);
    return ended;
  }

  /** Ends the active session of a conversation (close, call end) inside the caller's transaction. */
  async endActive(
    manager: EntityManager,
    conversation: Conversation,
    reason: SessionEndReason,
  ): Promise<Session | null> {
    const session = await this.sessions.active(conversation.workspaceId, conversation.id, manager);
    if (!session) return null;
    const ended = await this.sessions.end(conversation.workspaceId, session.id, reason, new Date(), manager);
    return ended ? session : null;
  }

  async queueEvaluation(workspaceId: string, sessionId: string): Promise<void> {
    await this.evaluations.add(
      'evaluate-session',
      { workspaceId, sessionId },
      { jobId: evaluationJobId(sessionId), removeOnComplete: true },
    );
    this.logger.debug({ workspaceId, sessionId }, 'session queued for evaluation');
  }

  async list(workspaceId: string, q: ListSessionsQuery): Promise<Page<SessionResponse>> {
    const [rows, total] = await this.sessions.list(workspaceId, q, skipTake(q));
    return pageOf(
      rows.map((s) => SessionResponse.of(s)),
      total,
      q,
    );
  }

  async get(workspaceId: string, sessionId: string, manager?: EntityManager): Promise<Session> {
    const session = await this.sessions.findById(workspaceId, sessionId, manager);
    if (!session) throw AppException.notFound('Session');
    return session;
  }

  transcript(workspaceId: string, sessionId: string): Promise<Message[]> {
    return this.messages.transcript(workspaceId, sessionId);
  }

  /** Records the evaluation's outcome once; false when another run recorded it first. */
  markReported(
    manager: EntityManager,
    workspaceId: string,
    sessionId: string,
    outcome: { evaluated: boolean; summary: string | null },
  ): Promise<boolean> {
    return this.sessions.markReported(workspaceId, sessionId, outcome, manager);
  }

  markMemorized(workspaceId: string, sessionId: string): Promise<boolean> {
    return this.sessions.markMemorized(workspaceId, sessionId);
  }

  recentSummaries(workspaceId: string, contactId: string, limit: number): Promise<string[]> {
    return this.sessions
      .recentSummaries(workspaceId, contactId, limit)
      .then((rows) => rows.map((s) => s.summary ?? ''));
  }
}
