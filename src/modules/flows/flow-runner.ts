import { KeyedRounds } from '@/common/concurrency/keyed-rounds';
import { Injectable, Logger } from '@nestjs/common';
import { runInChain } from '@/modules/events/event-chain';
import { OutboxEventInput, outboxInsertPerRow } from '@/modules/events/public';
import { ActionLogInput, actionLogInsertPerRow } from '@/modules/logs/public';
import { RetryStep, stepError } from './actions/action';
import { FlowActions } from './actions/flow-actions';
import { FlowExecution, StepRecord } from './flow.entity';
import { executionView, maskSecrets } from './flow-view';
import { FlowExecutionsService } from './flow-executions.service';
import { FlowOwner } from './flow-owner';
import { Traced } from '@/common/telemetry/traced';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { FLOW_EXECUTION_SPAN } from './flow-spans';
import { ClaimedExecution, FlowExecutionsRepository } from './executions.repository';
import { FlowsRepository, FlowVersionsRepository } from './flows.repository';
import { render } from './steps/references';
import { branchSkipped, INTERRUPTED, stepRecord } from './steps/step-records';
import { StoredStep } from './steps/step-tree';

import {
  EXECUTION_LEASE_MS,
  MAX_RUNNING_PER_WORKSPACE,
  MAX_STEP_ATTEMPTS,
  RESUME_GRACE_MS,
} from './flow-limits';

export { MAX_RUNNING_PER_WORKSPACE };
/** At most this many ends in one transaction. */
const END_BATCH = 50;

interface PendingEnd {
  execution: FlowExecution;
  name: string;
  status: 'succeeded' | 'failed';
  records: StepRecord[];
  error: FlowExecution['error'];
  resolve: () => void;
  reject: (err: unknown) => void;
}
interface EndQueue {
  items: PendingEnd[];
  writing: boolean;
}

/** Deployed versions kept in memory (they never change once written), keyed by workspace, flow and number. */
const VERSION_CACHE_SIZE = 1000;

/**
 * Runs executions: the steps of each one's version in order, each recorded with input, output, attempts and timing.
 * A run job starts as many of the workspace's waiting executions as it has free slots; as soon as one ends, the
 * oldest waiting ones are started for the slots free and run in the same job (no job, queue hop or polling delay
 * between one execution and the next). This process (`FlowOwner.id`) holds the executions it runs under a lease
 * that each saved step renews; every write it makes to one is conditional on still holding it, so once the
 * recovery has handed it back (this process taken for dead, or the lease run out) this process stops running it.
 */
@Injectable()
export class FlowRunner {
  private readonly logger = new Logger(FlowRunner.name);
  private readonly versionSteps = new Map<string, StoredStep[]>();
  /** One claim per workspace at a time in this process; calls meanwhile ask it for one more round. */
  private readonly claims = new KeyedRounds();
  /** Ends waiting to be written, per workspace, while a previous batch is being written. */
  private readonly ends = new Map<string, EndQueue>();

  constructor(
    private readonly executions: FlowExecutionsRepository,
    private readonly service: FlowExecutionsService,
    private readonly flows: FlowsRepository,
    private readonly versions: FlowVersionsRepository,
    private readonly actions: FlowActions,
    private readonly owner: FlowOwner,
  ) {}

  /**
   * Starts the workspace's oldest waiting executions while it has free slots and runs them, and after them the ones
   * their ends start; with none free it does nothing (the next ending execution starts the waiting ones, or the
   * wake-queued safety net). `resume` goes on with that running execution (a step retried later, or one handed back
   * by the recovery) if nobody holds it.
   */
  async run(workspaceId: WorkspaceId, executionId: string, resume = false): Promise<void> {
    const lanes: Array<Promise<void>> = [];
    const failures: unknown[] = [];
    const spawn = (c: ClaimedExecution, fromStore = false) =>
      lanes.push(
        this.execute(c, fromStore)
          .then(async (ended) => {
            if (ended) await this.claimFor(workspaceId, spawn);
          })
          .catch((err: unknown) => {
            failures.push(err);
            this.logger.error(`execution ${c.execution.id}: ${(err as Error).message}`);
          }),
      );
    if (resume) {
      const e = await this.executions.take(workspaceId, executionId, this.owner.id, EXECUTION_LEASE_MS);
      if (!e) return;
      spawn({ execution: e, flowName: null }, true);
    } else await this.claimFor(workspaceId, spawn);
    // Runs are added only while another of this job is still going, so once the last awaited has ended the list is
    // complete.
    for (let i = 0; i < lanes.length; i++) await lanes[i];
    if (failures.length) throw failures[0];
  }

  /**
   * Starts waiting executions for the workspace's free slots and hands each to `spawn`. One claim at a time per
   * workspace in this process: a call made while one is under way only asks it for another round, and that round
   * takes every slot freed meanwhile in one statement (so ends do not queue one by one on the workspace's lock).
   */
  private claimFor(workspaceId: WorkspaceId, spawn: (c: ClaimedExecution) => unknown): Promise<void> {
    return this.claims.run(workspaceId, async () => {
      const claimed = await this.executions.claim(
        workspaceId,
        MAX_RUNNING_PER_WORKSPACE,
        this.owner.id,
        EXECUTION_LEASE_MS,
      );
      claimed.forEach((c) => spawn(c));
    });
  }

  /** One execution to its end or pause; answers whether it ended (and so freed its slot). */
  @Traced('flow.execution', FLOW_EXECUTION_SPAN)
  private async execute(c: ClaimedExecution, fromStore: boolean): Promise<boolean> {
    const e = c.execution;
    const steps = await this.stepsOf(e, fromStore);
    if (!steps)
      return this.finish(c, 'failed', e.steps, {
        code: 'CONFLICT',
        message: 'The flow version no longer exists',
      });
    return this.walk(c, steps);
  }

  /**
   * The version's steps: from memory for a fresh start (versions are immutable), from the database on a resume (so
   * a version deleted meanwhile fails the execution).
   */
  private async stepsOf(e: FlowExecution, fromStore: boolean): Promise<StoredStep[] | null> {
    const key = `${e.workspaceId}:${e.flowId}:${e.version}`;
    const cached = fromStore ? undefined : this.versionSteps.get(key);
    if (cached) return cached;
    const version = await this.versions.get(e.workspaceId, e.flowId, e.version);
    if (!version) return null;
    if (this.versionSteps.size >= VERSION_CACHE_SIZE)
      this.versionSteps.delete(this.versionSteps.keys().next().value as string);
    this.versionSteps.set(key, version.steps);
    return version.steps;
  }

  private async walk(c: ClaimedExecution, steps: StoredStep[]): Promise<boolean> {
    const e = c.execution;
    const records: StepRecord[] = [...e.steps];
    const outputs = new Map<number, unknown>();
    records.forEach((r) => r.status === 'succeeded' && outputs.set(r.step_number, r.output));
    if (!records.length) {
      const t = steps[0];
      records.push(stepRecord(t, 1, 'succeeded', null, e.trigger.data, null, 1, null));
    }
    outputs.set(1, e.trigger.data);
    const begin = Math.max(1, e.resumeAt);
    for (let i = begin; i < steps.length; i++) {
      const step = steps[i];
      const n = i + 1;
      const prior = records[i]?.step_uuid === step.uuid ? records[i] : undefined;
      records.length = i;
      if (branchSkipped(steps, i, records)) {
        records.push(stepRecord(step, n, 'skipped', null, null, null, 0, null));
        continue;
      }
      // A step whose process kept dying under it is not tried again for ever.
      if (prior?.error?.code === INTERRUPTED && prior.attempts >= MAX_STEP_ATTEMPTS) {
        records.push(prior);
        return this.failAt(c, steps, i, records, prior.error);
      }
      const attempt = (prior?.attempts ?? 0) + 1;
      const input = render(step.config, outputs) as Record<string, unknown>;
      const at = new Date();
      const t0 = performance.now();
      try {
        const output = await runInChain(e.chain, () =>
          this.actions.run(step.action_key!, input, {
            workspaceId: e.workspaceId,
            executionId: e.id,
            stepNumber: n,
            attempt,
          }),
        );
        records.push(stepRecord(step, n, 'succeeded', input, output ?? null, null, attempt, at, t0));
        outputs.set(n, output ?? null);
        // The last step's record is written by the finish, which follows at once. Saving renews the lease.
        if (i < steps.length - 1 && !(await this.saveSteps(e, records))) return false;
      } catch (err) {
        const error = stepError(err);
        records.push(stepRecord(step, n, 'failed', input, null, error, attempt, at, t0));
        if (err instanceof RetryStep) return this.later(e, i, records, err.delayMs);
        return this.failAt(c, steps, i, records, error);
      }
    }
    return this.finish(c, 'succeeded', records, null);
  }

  /** The execution fails at step index `i` (its record already in `records`); the steps after it are skipped. */
  private failAt(
    c: ClaimedExecution,
    steps: StoredStep[],
    i: number,
    records: StepRecord[],
    error: { code: string; message: string },
  ): Promise<boolean> {
    for (let j = i + 1; j < steps.length; j++)
      records.push(stepRecord(steps[j], j + 1, 'skipped', null, null, null, 0, null));
    return this.finish(c, 'failed', records, { ...error, step_number: i + 1 });
  }

  /** Saves the records so far, renewing the lease; false when this process no longer holds the execution. */
  private async saveSteps(e: FlowExecution, records: StepRecord[]): Promise<boolean> {
    const held = await this.executions.saveSteps(
      e.workspaceId,
      e.id,
      records,
      this.owner.id,
      EXECUTION_LEASE_MS,
    );
    if (!held) this.logger.warn(`execution ${e.id}: handed back to be resumed elsewhere; stopped here`);
    return held;
  }

  /**
   * A step to try again later: the execution pauses at that step, nobody holding it, and a delayed job resumes it
   * (the job holds it until its time plus a grace; the recovery hands it back if the job is lost).
   */
  private async later(e: FlowExecution, i: number, records: StepRecord[], delayMs: number): Promise<boolean> {
    const held = await this.executions.pause(
      e.workspaceId,
      e.id,
      i,
      records,
      this.owner.id,
      delayMs,
      RESUME_GRACE_MS,
    );
    if (held) await this.service.enqueue(e.workspaceId, e.id, { delayMs, resume: true });
    return false;
  }

  /**
   * Ends the execution: its status and records, `flow_execution` and the action-log row, committed together. Ends
   * that come while the workspace's previous ends are being written share the next transaction (one update for all
   * their rows), so ends cost fewer round trips the busier the workspace is.
   */
  private async finish(
    c: ClaimedExecution,
    status: 'succeeded' | 'failed',
    records: StepRecord[],
    error: FlowExecution['error'],
  ): Promise<boolean> {
    const e = c.execution;
    const name = c.flowName ?? (await this.flows.findById(e.workspaceId, e.flowId))?.name ?? 'flow';
    await new Promise<void>((resolve, reject) => {
      let q = this.ends.get(e.workspaceId);
      if (!q) this.ends.set(e.workspaceId, (q = { items: [], writing: false }));
      q.items.push({ execution: e, name, status, records, error, resolve, reject });
      if (!q.writing) void this.writeEnds(e.workspaceId, q);
    });
    return true;
  }

  /** Writes the workspace's waiting ends, a statement per batch; a failed batch is tried again one end at a time. */
  private async writeEnds(workspaceId: WorkspaceId, q: EndQueue): Promise<void> {
    q.writing = true;
    try {
      while (q.items.length) {
        const batch = q.items.splice(0, END_BATCH);
        try {
          await this.writeBatch(workspaceId, batch);
          batch.forEach((b) => b.resolve());
        } catch {
          for (const b of batch) await this.writeBatch(workspaceId, [b]).then(b.resolve, b.reject);
        }
      }
    } finally {
      q.writing = false;
      this.ends.delete(workspaceId);
    }
  }

  /**
   * One statement: the ends of the batch, and for each execution ended its `flow_execution` event (carrying its own
   * chain) and its action-log row. One this process no longer holds was handed back: whoever resumes it ends it
   * (and writes its event and row).
   */
  private async writeBatch(workspaceId: WorkspaceId, batch: PendingEnd[]): Promise<void> {
    const finishedAt = new Date();
    await this.executions.finishMany(
      workspaceId,
      this.owner.id,
      batch.map((b) => ({ id: b.execution.id, status: b.status, steps: b.records, error: b.error })),
      (ended, params) => [
        outboxInsertPerRow(
          ended,
          workspaceId,
          batch.map((b) => ({ key: b.execution.id, event: this.endEvent(b, finishedAt) })),
          params,
        ),
        actionLogInsertPerRow(
          ended,
          workspaceId,
          batch.map((b) => ({ key: b.execution.id, entry: this.endLogEntry(b, finishedAt) })),
          params,
        ),
      ],
    );
  }

  private endEvent(b: PendingEnd, finishedAt: Date): OutboxEventInput {
    const done = { ...b.execution, status: b.status, steps: b.records, error: b.error, finishedAt };
    return {
      type: 'flow_execution',
      agentId: null,
      chain: b.execution.chain,
      data: { execution: executionView(done as FlowExecution, false) },
    };
  }

  private endLogEntry(
    { execution: e, name, status, records, error }: PendingEnd,
    finishedAt: Date,
  ): ActionLogInput {
    return {
      type: 'workflow',
      name,
      status,
      durationMs: e.startedAt ? finishedAt.getTime() - new Date(e.startedAt).getTime() : undefined,
      subjectId: e.id,
      request: maskSecrets(e.trigger) as Record<string, unknown>,
      response: { steps: records.map((r) => ({ step_number: r.step_number, key: r.key, status: r.status })) },
      error: error ? `${error.code}: ${error.message}` : undefined,
    };
  }

  /** The safety net: every workspace with waiting executions and free slots gets one run job. */
  async wakeStartable(): Promise<void> {
    const rows = await this.executions.startable(MAX_RUNNING_PER_WORKSPACE, 2000);
    const first = new Map<WorkspaceId, string>();
    for (const r of rows) if (!first.has(r.workspace_id)) first.set(r.workspace_id, r.id);
    await Promise.all([...first].map(([ws, id]) => this.service.enqueue(ws, id)));
  }
}
