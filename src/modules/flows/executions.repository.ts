import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { newId } from '@/common/persistence/base.entity';
import { Sweep } from '@/common/persistence/sweep';
import type { Transaction } from '@/common/persistence/unit-of-work';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import { ExecutionStatus, ExecutionTrigger, FlowExecution, StepRecord } from './flow.entity';

export interface NewExecution {
  flowId: string;
  version: number;
  trigger: ExecutionTrigger;
  triggerRef: string | null;
  chain: readonly string[];
  retryOf?: string | null;
  resumeAt?: number;
  steps?: StepRecord[];
}

@Injectable()
export class FlowExecutionsRepository extends WorkspaceScopedRepository<FlowExecution> {
  constructor(@InjectRepository(FlowExecution) repo: Repository<FlowExecution>) {
    super(repo);
  }

  /** Queued executions; one whose trigger occurrence already made one for that flow is skipped. Answers ids made. */
  async insertQueued(tx: Transaction, workspaceId: string, rows: NewExecution[]): Promise<string[]> {
    const made: string[] = [];
    for (const r of rows) {
      const id = newId();
      const inserted = await this.sql<Array<{ id: string }>>(
        `INSERT INTO flow_executions (id, workspace_id, flow_id, version, status, trigger, trigger_ref, chain,
                                      retry_of, resume_at, steps)
         VALUES ($1, $2, $3, $4, 'queued', $5, $6, $7, $8, $9, $10)
         ON CONFLICT (flow_id, trigger_ref) WHERE trigger_ref IS NOT NULL DO NOTHING RETURNING id`,
        [
          id,
          workspaceId,
          r.flowId,
          r.version,
          JSON.stringify(r.trigger),
          r.triggerRef,
          [...r.chain, id],
          r.retryOf ?? null,
          r.resumeAt ?? 0,
          JSON.stringify(r.steps ?? []),
        ],
        tx,
      );
      if (inserted.length) made.push(id);
    }
    return made;
  }

  /**
   * Moves a queued execution to running when the workspace has fewer than `limit` running; a transaction-scoped
   * advisory lock per workspace makes the count and the move one step. Answers whether it started.
   */
  async start(
    workspaceId: string,
    id: string,
    limit: number,
    tx: Transaction,
  ): Promise<'started' | 'full' | 'gone'> {
    await this.sql(
      `SELECT pg_advisory_xact_lock(hashtext('flow_executions:' || $1::text))`,
      [workspaceId],
      tx,
    );
    const [{ running }] = await this.sql<Array<{ running: number }>>(
      `SELECT count(*)::int AS running FROM flow_executions WHERE workspace_id = $1 AND status = 'running'`,
      [workspaceId],
      tx,
    );
    if (running >= limit) {
      const still = await this.sql<unknown[]>(
        `SELECT 1 FROM flow_executions WHERE workspace_id = $1 AND id = $2 AND status = 'queued'`,
        [workspaceId, id],
        tx,
      );
      return still.length ? 'full' : 'gone';
    }
    // An UPDATE answers [rows, count].
    const [, moved] = await this.sql<[unknown[], number]>(
      `UPDATE flow_executions SET status = 'running', started_at = COALESCE(started_at, now()), updated_at = now()
        WHERE workspace_id = $1 AND id = $2 AND status = 'queued'`,
      [workspaceId, id],
      tx,
    );
    return moved ? 'started' : 'gone';
  }

  /** Stores the step records so far (each step's record is kept as soon as it ends). */
  async saveSteps(workspaceId: string, id: string, steps: StepRecord[]): Promise<void> {
    await this.sql(
      `UPDATE flow_executions SET steps = $3, updated_at = now() WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, id, JSON.stringify(steps)],
    );
  }

  async finish(
    tx: Transaction,
    workspaceId: string,
    id: string,
    status: ExecutionStatus,
    steps: StepRecord[],
    error: FlowExecution['error'],
  ): Promise<void> {
    await this.sql(
      `UPDATE flow_executions SET status = $3, steps = $4, error = $5, finished_at = now(), updated_at = now()
        WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, id, status, JSON.stringify(steps), error ? JSON.stringify(error) : null],
      tx,
    );
  }

  /** A running execution pauses until step index `resumeAt` is tried again (it keeps its slot meanwhile). */
  async pause(workspaceId: string, id: string, resumeAt: number, steps: StepRecord[]): Promise<void> {
    await this.sql(
      `UPDATE flow_executions SET resume_at = $3, steps = $4, updated_at = now()
        WHERE workspace_id = $1 AND id = $2 AND status = 'running'`,
      [workspaceId, id, resumeAt, JSON.stringify(steps)],
    );
  }

  /**
   * Waiting executions that could start now, across workspaces: per workspace the oldest queued, as many as it has
   * free slots. The safety net for a wake-up lost with a job.
   */
  @Sweep('dispatch')
  async startable(limit: number, max: number): Promise<Array<{ workspace_id: string; id: string }>> {
    return this.sql(
      `SELECT q.workspace_id, q.id FROM (
          SELECT workspace_id, id, row_number() OVER (PARTITION BY workspace_id ORDER BY created_at, id) AS rn
            FROM flow_executions WHERE status = 'queued') q
         JOIN (SELECT workspace_id, count(*) FILTER (WHERE status = 'running')::int AS running
                 FROM flow_executions WHERE status IN ('queued', 'running') GROUP BY workspace_id) r
           USING (workspace_id)
        WHERE q.rn <= $1 - r.running
        LIMIT $2`,
      [limit, max],
    );
  }

  /**
   * Retention (13.5): executions that ended more than `days` ago go, in every workspace, a batch at a time; queued
   * and running ones stay whatever their age. Answers how many went.
   */
  @Sweep('retention')
  async purgeEndedBefore(days: number, batchSize: number): Promise<number> {
    const [, deleted] = await this.sql<[unknown, number]>(
      `DELETE FROM flow_executions WHERE id IN (
         SELECT id FROM flow_executions
          WHERE finished_at IS NOT NULL AND finished_at < now() - make_interval(days => $1)
            AND status IN ('succeeded', 'failed', 'cancelled')
          LIMIT $2)`,
      [days, batchSize],
    );
    return deleted;
  }

  /** Queued executions of a flow become cancelled (the flow is being deleted). */
  async cancelQueued(tx: Transaction, workspaceId: string, flowId: string): Promise<void> {
    await this.sql(
      `UPDATE flow_executions SET status = 'cancelled', finished_at = now(), updated_at = now()
        WHERE workspace_id = $1 AND flow_id = $2 AND status = 'queued'`,
      [workspaceId, flowId],
      tx,
    );
  }

  /** The oldest queued executions of the workspace (to start when a slot frees). */
  async oldestQueued(workspaceId: string, limit: number): Promise<string[]> {
    const rows = await this.sql<Array<{ id: string }>>(
      `SELECT id FROM flow_executions WHERE workspace_id = $1 AND status = 'queued'
        ORDER BY created_at, id LIMIT $2`,
      [workspaceId, limit],
    );
    return rows.map((r) => r.id);
  }

  list(
    workspaceId: string,
    flowId: string,
    q: { status?: ExecutionStatus; from?: Date; to?: Date; skip: number; take: number },
  ): Promise<[FlowExecution[], number]> {
    const qb = this.query(workspaceId, 'e').andWhere('e.flow_id = :flowId', { flowId });
    if (q.status) qb.andWhere('e.status = :status', { status: q.status });
    if (q.from) qb.andWhere('e.created_at >= :from', { from: q.from });
    if (q.to) qb.andWhere('e.created_at < :to', { to: q.to });
    return qb
      .orderBy('e.created_at', 'DESC')
      .addOrderBy('e.id', 'DESC')
      .skip(q.skip)
      .take(q.take)
      .getManyAndCount();
  }
}
