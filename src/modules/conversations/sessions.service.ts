import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import type Redis from 'ioredis';
import { EntityManager } from 'typeorm';
import { AppException } from '@/common/errors/app.exception';
import { pageOf, Page, skipTake } from '@/common/http/pagination';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import type { NewRows } from '@/common/persistence/workspace-scoped.repository';
import { REDIS } from '@/common/redis/redis.module';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { Conversation } from './conversation.entity';
import { ListSessionsQuery } from './dto/requests';
import { SessionResponse } from './dto/responses';
import { MessagesRepository } from './messages.repository';
import { SessionsRepository } from './sessions.repository';
import type { Message } from './message.entity';
import type { Session, SessionEndReason } from './session.entity';

type TimeoutJob = JobPayloads['sessions']['session-timeout'];
type EvaluateJob = JobPayloads['evaluation']['evaluate-session'];

/** A session's timer is known by the moment it fires (each re-arm fires later, so ids never repeat). */
export const timeoutJobId = (sessionId: string, dueMs: number): string => `timeout:${sessionId}:${dueMs}`;
export const evaluationJobId = (sessionId: string): string => `evaluate:${sessionId}`;

/** When the session's pending timer fires (ms), kept beside the timer so a turn can tell whether one is owed. */
const timerKey = (sessionId: string) => `session:timer:{${sessionId}}`;
/**
 * A known timer is trusted until this long after it was due: a turn past that asks Redis again (a timer that failed
 * for good, or whose Redis state was lost, is replaced by the next turn).
 */
const TIMER_GRACE_MS = 60_000;
/** Timers this process armed or saw armed (session → due ms), oldest forgotten first. */
const KNOWN_TIMERS_MAX = 10_000;

/**
 * Sessions: opened by the first customer turn, kept alive by each turn, ended by idleness, by close, or when a call
 * ends. Idleness is one Bull delayed job per session at a time (timers survive restarts and work across replicas):
 * a turn adds none while a timer due no later than its own idle deadline is pending; the timer, when it fires,
 * ends the session if the customer is still idle, else re-arms itself at the new deadline. An ended session is
 * queued for evaluation exactly once (the job id is the session's).
 */
@Injectable()
export class SessionsService {
  private readonly logger = new Logger(SessionsService.name);
  private readonly knownTimers = new Map<string, number>();

  constructor(
    private readonly sessions: SessionsRepository,
    private readonly messages: MessagesRepository,
    private readonly unitOfWork: UnitOfWork,
    @Inject(REDIS) private readonly redis: Redis,
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
    return { session: await this.open(manager, conversation, at, timeoutMs), previousActivityMs: null };
  }

  /** Opens an active session of the conversation at `at`, counting the message that opens it. One INSERT. */
  private async open(
    manager: EntityManager,
    conversation: Conversation,
    at: Date,
    timeoutMs: number,
  ): Promise<Session> {
    const session = this.build(conversation, at, timeoutMs, 1);
    await this.sessions.insertNew(conversation.workspaceId, [session], manager);
    return session;
  }

  /**
   * A new active session of the conversation with its row, for a statement that writes it beside the conversation;
   * it counts no message yet (the first is written into it after).
   */
  newActive(conversation: Conversation, at: Date, timeoutMs: number): { session: Session; rows: NewRows } {
    const session = this.build(conversation, at, timeoutMs, 0);
    return { session, rows: this.sessions.newRows(conversation.workspaceId, [session]) };
  }

  private build(conversation: Conversation, at: Date, timeoutMs: number, messages: number): Session {
    return this.sessions.build(conversation.workspaceId, {
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
      messageCount: messages,
      timeoutMs,
      endReportedAt: null,
      memorizedAt: null,
      createdAt: at,
      updatedAt: at,
    });
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

  /**
   * After the turn commits: makes sure a timer fires no later than the session's new idle deadline. The session's
   * pending timer (due at or before that deadline) re-arms itself when it fires, so most turns add no job: a timer
   * this process knows of costs nothing, otherwise one Redis read. `previousActivityMs` is not needed (kept for the
   * callers).
   */
  async scheduleTimeout(session: Session, _previousActivityMs?: number | null): Promise<void> {
    const dueMs = session.lastActivityAt.getTime() + session.timeoutMs;
    const known = this.knownTimers.get(session.id);
    if (known !== undefined && known <= dueMs && Date.now() < known + TIMER_GRACE_MS) return;
    await this.arm(session.workspaceId, session.id, session.lastActivityAt.getTime(), dueMs, null);
  }

  /**
   * A timer due at `dueMs` unless a pending one fires no later (`firedMs`: the timer now running, which no longer
   * counts). The job goes first, the marker after, so a crash in between leaves an extra timer, never none.
   */
  private async arm(
    workspaceId: WorkspaceId,
    sessionId: string,
    activityMs: number,
    dueMs: number,
    firedMs: number | null,
  ): Promise<void> {
    const now = Date.now();
    const pending = Number((await this.redis.get(timerKey(sessionId))) ?? NaN);
    if (pending <= dueMs && pending > (firedMs ?? now - TIMER_GRACE_MS))
      return this.remember(sessionId, pending);
    await this.timeouts.add(
      'session-timeout',
      { workspaceId, sessionId, activityMs, dueMs },
      { jobId: timeoutJobId(sessionId, dueMs), delay: Math.max(0, dueMs - now) },
    );
    await this.redis.set(timerKey(sessionId), String(dueMs), 'PX', Math.max(0, dueMs - now) + TIMER_GRACE_MS);
    this.remember(sessionId, dueMs);
  }

  private remember(sessionId: string, dueMs: number): void {
    this.knownTimers.delete(sessionId);
    this.knownTimers.set(sessionId, dueMs);
    if (this.knownTimers.size > KNOWN_TIMERS_MAX)
      this.knownTimers.delete(this.knownTimers.keys().next().value!);
  }

  /**
   * The timer fired: ends the session if the customer is still idle past its timeout; if a turn moved the idle
   * clock meanwhile, the timer re-arms at the new deadline (unless another pending timer fires no later).
   */
  async endIfIdle(
    workspaceId: WorkspaceId,
    sessionId: string,
    firedMs: number | null = null,
  ): Promise<boolean> {
    const { ended, rearm } = await this.unitOfWork.run(async (m) => {
      const session = await this.sessions.findOne(workspaceId, { id: sessionId }, {}, m);
      if (!session || session.status !== 'active') return { ended: false, rearm: null };
      const activityMs = session.lastActivityAt.getTime();
      const dueMs = activityMs + session.timeoutMs;
      if (dueMs > Date.now()) return { ended: false, rearm: { activityMs, dueMs } }; // newer activity
      return {
        ended: await this.sessions.end(workspaceId, sessionId, 'timeout', new Date(), m),
        rearm: null,
      };
    });
    if (rearm) await this.arm(workspaceId, sessionId, rearm.activityMs, rearm.dueMs, firedMs ?? Date.now());
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

  async queueEvaluation(workspaceId: WorkspaceId, sessionId: string): Promise<void> {
    await this.evaluations.add(
      'evaluate-session',
      { workspaceId, sessionId },
      { jobId: evaluationJobId(sessionId), removeOnComplete: true },
    );
    this.logger.debug({ workspaceId, sessionId }, 'session queued for evaluation');
  }

  async list(workspaceId: WorkspaceId, q: ListSessionsQuery): Promise<Page<SessionResponse>> {
    const [rows, total] = await this.sessions.list(workspaceId, q, skipTake(q));
    return pageOf(
      rows.map((s) => SessionResponse.of(s)),
      total,
      q,
    );
  }

  async get(workspaceId: WorkspaceId, sessionId: string, manager?: EntityManager): Promise<Session> {
    const session = await this.sessions.findById(workspaceId, sessionId, manager);
    if (!session) throw AppException.notFound('Session');
    return session;
  }

  transcript(workspaceId: WorkspaceId, sessionId: string): Promise<Message[]> {
    return this.messages.transcript(workspaceId, sessionId);
  }

  /** Records the evaluation's outcome once; false when another run recorded it first. */
  markReported(
    manager: EntityManager,
    workspaceId: WorkspaceId,
    sessionId: string,
    outcome: { evaluated: boolean; summary: string | null },
  ): Promise<boolean> {
    return this.sessions.markReported(workspaceId, sessionId, outcome, manager);
  }

  markMemorized(workspaceId: WorkspaceId, sessionId: string): Promise<boolean> {
    return this.sessions.markMemorized(workspaceId, sessionId);
  }

  recentSummaries(workspaceId: WorkspaceId, contactId: string, limit: number): Promise<string[]> {
    return this.sessions
      .recentSummaries(workspaceId, contactId, limit)
      .then((rows) => rows.map((s) => s.summary ?? ''));
  }
}
