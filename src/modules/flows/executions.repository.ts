import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { newId } from '@/common/persistence/base.entity';
import { Sweep } from '@/common/persistence/sweep';
import type { Transaction } from '@/common/persistence/unit-of-work';
import { WorkspaceScopedRepository } from '@/common/persistence/workspace-scoped.repository';
import type { WorkspaceId } from '@/common/auth/workspace-id';
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

/** A claimed execution with its flow's name (for the action log at its end). */
export interface ClaimedExecution {
  execution: FlowExecution;
  flowName: string | null;
}

interface RawExecution {
  id: string;
  workspace_id: WorkspaceId;
  created_at: Date;
  updated_at: Date;
  flow_id: string;
  version: number;
  status: ExecutionStatus;
  trigger: ExecutionTrigger;
  trigger_ref: string | null;
  chain: string[];
  retry_of: string | null;
  resume_at: number;
  error: FlowExecution['error'];
  steps: StepRecord[];
  started_at: Date | null;
  finished_at: Date | null;
  claimed_by: string | null;
  lease_until: Date | null;
  flow_name: string | null;
}

/** A running execution the recovery sweep looks at: its owner is dead or its lease has run out. */
export interface StalledExecution {
  workspace_id: WorkspaceId;
  id: string;
  flow_id: string;
  version: number;
  trigger: ExecutionTrigger;
  resume_at: number;
  steps: StepRecord[];
  claimed_by: string | null;
  updated_at: Date;
}

function fromRow(r: RawExecution): FlowExecution {
  return Object.assign(new FlowExecution(), {
    id: r.id,
    workspaceId: r.workspace_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    flowId: r.flow_id,
    version: r.version,
    status: r.status,
    trigger: r.trigger,
    triggerRef: r.trigger_ref,
    chain: r.chain,
    retryOf: r.retry_of,
    resumeAt: r.resume_at,
    error: r.error,
    steps: r.steps,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    claimedBy: r.claimed_by,
    leaseUntil: r.lease_until,
  });
}

@Injectable()
export class FlowExecutionsRepository extends WorkspaceScopedRepository<FlowExecution> {
  constructor(@InjectRepository(FlowExecution) repo: Repository<FlowExecution>) {
    super(repo);
  }

  /**
   * Queued executions, in one statement; one whose trigger occurrence already made one for that flow is skipped.
   * Answers the ids made, in the order given.
   */
  async insertQueued(tx: Transaction, workspaceId: WorkspaceId, rows: NewExecution[]): Promise<string[]> {
    if (!rows.length) return [];
    const values = rows.map((r) => {
      const id = newId();
      return {
        id,
        flow_id: r.flowId,
        version: r.version,
        trigger: r.trigger,
        trigger_ref: r.triggerRef,
        chain: [...r.chain, id],
        retry_of: r.retryOf ?? null,
        resume_at: r.resumeAt ?? 0,
        steps: r.steps ?? [],
      };
    });
    const params: unknown[] = [workspaceId];
    const tuples = values.map((v) => {
      const at = params.length;
      params.push(
        v.id,
        v.flow_id,
        v.version,
        JSON.stringify(v.trigger),
        v.trigger_ref,
        v.chain,
        v.retry_of,
        v.resume_at,
        JSON.stringify(v.steps),
      );
      const p = (k: number) => `$${at + k}`;
      return `(${p(1)}, $1, ${p(2)}, ${p(3)}, 'queued', ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)}, ${p(8)}, ${p(9)})`;
    });
    const inserted = await this.sql<Array<{ id: string }>>(
      `INSERT INTO flow_executions (id, workspace_id, flow_id, version, status, trigger, trigger_ref, chain,
                                    retry_of, resume_at, steps)
       VALUES ${tuples.join(', ')}
       ON CONFLICT (flow_id, trigger_ref) WHERE trigger_ref IS NOT NULL DO NOTHING RETURNING id`,
      params,
      tx,
    );
    const made = new Set(inserted.map((r) => r.id));
    return values.filter((v) => made.has(v.id)).map((v) => v.id);
  }

  /**
   * Moves the workspace's oldest queued executions to running, as many as it has free slots under `limit`, in one
   * call of `flow_executions_claim` (migration 1764100000000): under the workspace's advisory lock it counts the
   * running ones and moves the oldest waiting ones, so two processes claiming at once take turns and the limit holds
   * across processes. `owner` (this process) holds them under a lease of `leaseMs`. Not in a transaction: the call
   * is its own, and its commit releases the lock. Answers the started executions with their flow's name, in the
   * order they were queued.
   */
  async claim(
    workspaceId: WorkspaceId,
    limit: number,
    owner: string,
    leaseMs: number,
  ): Promise<ClaimedExecution[]> {
    const rows = await this.sql<RawExecution[]>(
      `SELECT c.*, (SELECT f.name FROM flows f WHERE f.workspace_id = $1 AND f.id = c.flow_id) AS flow_name
         FROM flow_executions_claim($1, $2, $3, $4) c`,
      [workspaceId, limit, owner, leaseMs],
    );
    return rows
      .map((r) => ({ execution: fromRow(r), flowName: r.flow_name }))
      .sort(
        (x, y) =>
          x.execution.createdAt.getTime() - y.execution.createdAt.getTime() ||
          (x.execution.id < y.execution.id ? -1 : 1),
      );
  }

  /**
   * A running execution nobody holds (paused for a step tried again later, or handed back by the recovery) taken by
   * `owner` to go on with it, under a lease of `leaseMs`. Null when it is not running or someone else took it first
   * (two resume jobs, or a resume job and the recovery's: one takes it).
   */
  async take(
    workspaceId: WorkspaceId,
    id: string,
    owner: string,
    leaseMs: number,
  ): Promise<FlowExecution | null> {
    const [rows] = await this.sql<[RawExecution[], number]>(
      `UPDATE flow_executions SET claimed_by = $3, lease_until = now() + $4::int * interval '1 millisecond', updated_at = now()
        WHERE workspace_id = $1 AND id = $2 AND status = 'running' AND claimed_by IS NULL
       RETURNING *`,
      [workspaceId, id, owner, leaseMs],
    );
    return rows[0] ? fromRow(rows[0]) : null;
  }

  /**
   * Stores the step records so far (each step's record is kept as soon as it ends) and renews `owner`'s lease. False
   * when `owner` no longer holds the execution (it was handed back as interrupted): the caller stops running it.
   */
  async saveSteps(
    workspaceId: WorkspaceId,
    id: string,
    steps: StepRecord[],
    owner: string,
    leaseMs: number,
  ): Promise<boolean> {
    const [, n] = await this.sql<[unknown, number]>(
      `UPDATE flow_executions SET steps = $3, lease_until = now() + $5::int * interval '1 millisecond', updated_at = now()
        WHERE workspace_id = $1 AND id = $2 AND status = 'running' AND claimed_by = $4`,
      [workspaceId, id, JSON.stringify(steps), owner, leaseMs],
    );
    return n > 0;
  }

  /**
   * Ends several executions of the workspace that `owner` holds, in one statement; answers the ids ended (one that
   * `owner` no longer holds is left to whoever resumes it). `beside` adds writes to the same statement: given the
   * name of a CTE answering the `id` of each execution ended and the statement's parameters (to append to), it
   * answers the CTE bodies (data-modifying statements that join that CTE), which commit exactly with the ends.
   */
  async finishMany(
    workspaceId: WorkspaceId,
    owner: string,
    rows: Array<{ id: string; status: ExecutionStatus; steps: StepRecord[]; error: FlowExecution['error'] }>,
    beside: (ended: string, params: unknown[]) => string[] = () => [],
  ): Promise<string[]> {
    const params: unknown[] = [workspaceId, JSON.stringify(rows), owner];
    const also = beside('ended', params)
      .map((body, i) => `, beside_${i} AS (${body})`)
      .join('');
    const ended = await this.sql<Array<{ id: string }>>(
      `WITH ended AS (
         UPDATE flow_executions e SET status = v.status, steps = v.steps, error = v.error, finished_at = now(),
                                      claimed_by = NULL, lease_until = NULL, updated_at = now()
           FROM jsonb_to_recordset($2::jsonb) AS v(id uuid, status varchar, steps jsonb, error jsonb)
          WHERE e.workspace_id = $1 AND e.id = v.id AND e.status = 'running' AND e.claimed_by = $3
         RETURNING e.id
       )${also}
       SELECT id FROM ended`,
      params,
    );
    return ended.map((r) => r.id);
  }

  /**
   * A running execution that `owner` holds pauses until step index `resumeAt` is tried again, `delayMs` from now (it
   * keeps its slot meanwhile); its resume job holds it until then plus `graceMs`. False when `owner` no longer holds it.
   */
  async pause(
    workspaceId: WorkspaceId,
    id: string,
    resumeAt: number,
    steps: StepRecord[],
    owner: string,
    delayMs: number,
    graceMs: number,
  ): Promise<boolean> {
    const [, n] = await this.sql<[unknown, number]>(
      `UPDATE flow_executions SET resume_at = $3, steps = $4, claimed_by = NULL,
                                  lease_until = now() + ($6::int + $7::int) * interval '1 millisecond', updated_at = now()
        WHERE workspace_id = $1 AND id = $2 AND status = 'running' AND claimed_by = $5`,
      [workspaceId, id, resumeAt, JSON.stringify(steps), owner, delayMs, graceMs],
    );
    return n > 0;
  }

  /** The process instances holding running executions, across workspaces (the recovery checks which are alive). */
  @Sweep('reconciliation')
  async runningOwners(): Promise<string[]> {
    const rows = await this.sql<Array<{ claimed_by: string }>>(
      `SELECT DISTINCT claimed_by FROM flow_executions WHERE status = 'running' AND claimed_by IS NOT NULL`,
    );
    return rows.map((r) => r.claimed_by);
  }

  /**
   * Running executions to hand back, across workspaces: held by one of the `dead` owners, or with their lease run out
   * (held by a live process but stuck, or paused with their resume job lost). At most `max`.
   */
  @Sweep('reconciliation')
  stalled(dead: string[], max: number): Promise<StalledExecution[]> {
    return this.sql(
      `SELECT workspace_id, id, flow_id, version, trigger, resume_at, steps, claimed_by, updated_at
         FROM flow_executions
        WHERE status = 'running' AND (claimed_by = ANY($1::varchar[]) OR lease_until < now())
        ORDER BY lease_until LIMIT $2`,
      [dead, max],
    );
  }

  /**
   * Hands a stalled execution back, to resume at step index `resumeAt` with `steps`, if it is still as it was read
   * (running, the same owner, not written since): a conditional update, so an owner that renewed its lease or saved a
   * step meanwhile keeps it, and of two sweeps one hands it back. Nobody holds it then; its resume job takes it
   * within `graceMs`, or it is handed back again.
   */
  async handBack(
    seen: StalledExecution,
    resumeAt: number,
    steps: StepRecord[],
    graceMs: number,
  ): Promise<boolean> {
    const [, n] = await this.sql<[unknown, number]>(
      `UPDATE flow_executions SET claimed_by = NULL, resume_at = $3, steps = $4,
                                  lease_until = now() + $7::int * interval '1 millisecond', updated_at = now()
        WHERE workspace_id = $1 AND id = $2 AND status = 'running'
          AND claimed_by IS NOT DISTINCT FROM $5::varchar AND updated_at = $6`,
      [
        seen.workspace_id,
        seen.id,
        resumeAt,
        JSON.stringify(steps),
        seen.claimed_by,
        seen.updated_at,
        graceMs,
      ],
    );
    return n > 0;
  }

  /**
   * Waiting executions that could start now, across workspaces: per workspace the oldest queued, as many as it has
   * free slots. The safety net for a wake-up lost with a job.
   */
  @Sweep('dispatch')
  async startable(limit: number, max: number): Promise<Array<{ workspace_id: WorkspaceId; id: string }>> {
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
  async cancelQueued(tx: Transaction, workspaceId: WorkspaceId, flowId: string): Promise<void> {
    await this.sql(
      `UPDATE flow_executions SET status = 'cancelled', finished_at = now(), updated_at = now()
        WHERE workspace_id = $1 AND flow_id = $2 AND status = 'queued'`,
      [workspaceId, flowId],
      tx,
    );
  }

  list(
    workspaceId: WorkspaceId,
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
