import { Injectable, Logger } from '@nestjs/common';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import { runInChain } from '@/modules/events/event-chain';
import { OutboxService } from '@/modules/events/outbox.service';
import { ActionLog } from '@/modules/logs/action-log.service';
import { RetryStep, stepError } from './actions/action';
import { FlowActions } from './actions/flow-actions';
import { FlowExecution, StepRecord } from './flow.entity';
import { executionView, maskSecrets } from './flow-view';
import { FlowExecutionsService } from './flow-executions.service';
import { FlowExecutionsRepository } from './executions.repository';
import { FlowsRepository, FlowVersionsRepository } from './flows.repository';
import { render } from './steps/references';
import { StoredStep } from './steps/step-tree';

import { MAX_RUNNING_PER_WORKSPACE } from './flow-limits';

export { MAX_RUNNING_PER_WORKSPACE };
/** A finishing execution wakes this many of the oldest waiting ones (each start checks the limit again). */
const WAKE = 2;

/** Runs one execution: the steps of its version in order, each recorded with input, output, attempts and timing. */
@Injectable()
export class FlowRunner {
  private readonly logger = new Logger(FlowRunner.name);

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly executions: FlowExecutionsRepository,
    private readonly service: FlowExecutionsService,
    private readonly flows: FlowsRepository,
    private readonly versions: FlowVersionsRepository,
    private readonly actions: FlowActions,
    private readonly outbox: OutboxService,
    private readonly actionLog: ActionLog,
  ) {}

  /**
   * Starts a queued execution if the workspace has a free slot; when it has none the execution stays queued and is
   * woken by the next one that ends (or the wake-queued safety net). `resume` goes on with a running execution.
   */
  async run(workspaceId: string, executionId: string, resume = false): Promise<void> {
    if (!resume) {
      const started = await this.unitOfWork.run((tx) =>
        this.executions.start(workspaceId, executionId, MAX_RUNNING_PER_WORKSPACE, tx),
      );
      if (started !== 'started') return;
    }
    const e = await this.executions.findById(workspaceId, executionId);
    if (!e || e.status !== 'running') return;
    const version = await this.versions.get(workspaceId, e.flowId, e.version);
    if (!version)
      return this.finish(e, 'failed', e.steps, {
        code: 'CONFLICT',
        message: 'The flow version no longer exists',
      });
    await this.walk(e, version.steps);
  }

  private async walk(e: FlowExecution, steps: StoredStep[]): Promise<void> {
    const records: StepRecord[] = [...e.steps];
    const outputs = new Map<number, unknown>();
    records.forEach((r) => r.status === 'succeeded' && outputs.set(r.step_number, r.output));
    if (!records.length) {
      const t = steps[0];
      records.push(this.record(t, 1, 'succeeded', null, e.trigger.data, null, 1, null));
    }
    outputs.set(1, e.trigger.data);
    const begin = Math.max(1, e.resumeAt);
    for (let i = begin; i < steps.length; i++) {
      const step = steps[i];
      const n = i + 1;
      const prior = records[i]?.step_uuid === step.uuid ? records[i] : undefined;
      records.length = i;
      if (this.skipped(steps, i, records)) {
        records.push(this.record(step, n, 'skipped', null, null, null, 0, null));
        continue;
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
        records.push(this.record(step, n, 'succeeded', input, output ?? null, null, attempt, at, t0));
        outputs.set(n, output ?? null);
        await this.executions.saveSteps(e.workspaceId, e.id, records);
      } catch (err) {
        const error = stepError(err);
        records.push(this.record(step, n, 'failed', input, null, error, attempt, at, t0));
        if (err instanceof RetryStep) return this.later(e, i, records, err.delayMs);
        for (let j = i + 1; j < steps.length; j++)
          records.push(this.record(steps[j], j + 1, 'skipped', null, null, null, 0, null));
        return this.finish(e, 'failed', records, { ...error, step_number: n });
      }
    }
    return this.finish(e, 'succeeded', records, null);
  }

  /** A step inside a branch that did not run: its condition went the other way or was itself skipped. */
  private skipped(steps: StoredStep[], i: number, records: StepRecord[]): boolean {
    const parent = steps[i].parent_step_uuid;
    if (!parent) return false;
    const pi = steps.findIndex((s) => s.uuid === parent);
    const rec = records[pi];
    if (!rec || rec.status !== 'succeeded') return true;
    const result = (rec.output as { result?: boolean } | null)?.result === true;
    return String(result) !== steps[i].branch_key;
  }

  /** A step to try again later: the execution pauses at that step and a delayed job resumes it. */
  private async later(e: FlowExecution, i: number, records: StepRecord[], delayMs: number): Promise<void> {
    await this.executions.pause(e.workspaceId, e.id, i, records);
    await this.service.enqueue(e.workspaceId, e.id, { delayMs, resume: true });
  }

  private async finish(
    e: FlowExecution,
    status: 'succeeded' | 'failed',
    records: StepRecord[],
    error: FlowExecution['error'],
  ): Promise<void> {
    const flow = await this.flows.findById(e.workspaceId, e.flowId);
    const done = { ...e, status, steps: records, error, finishedAt: new Date() } as FlowExecution;
    const durationMs = e.startedAt ? Date.now() - new Date(e.startedAt).getTime() : null;
    await this.unitOfWork.run(async (tx) => {
      await this.executions.finish(tx, e.workspaceId, e.id, status, records, error);
      await runInChain(e.chain, () =>
        this.outbox.record(tx, e.workspaceId, [
          { type: 'flow_execution', agentId: null, data: { execution: executionView(done, false) } },
        ]),
      );
      await this.actionLog.record(
        e.workspaceId,
        {
          type: 'workflow',
          name: flow?.name ?? 'flow',
          status,
          durationMs: durationMs ?? undefined,
          subjectId: e.id,
          request: maskSecrets(e.trigger) as Record<string, unknown>,
          response: {
            steps: records.map((r) => ({ step_number: r.step_number, key: r.key, status: r.status })),
          },
          error: error ? `${error.code}: ${error.message}` : undefined,
        },
        tx,
      );
    });
    await this.wakeWaiting(e.workspaceId);
  }

  /** The safety net: waiting executions of every workspace with free slots get a start job. */
  async wakeStartable(): Promise<void> {
    const rows = await this.executions.startable(MAX_RUNNING_PER_WORKSPACE, 2000);
    await Promise.all(rows.map((r) => this.service.enqueue(r.workspace_id, r.id)));
  }

  /** A slot freed: queue a run of the oldest waiting executions (each run checks the limit again). */
  private async wakeWaiting(workspaceId: string): Promise<void> {
    const ids = await this.executions.oldestQueued(workspaceId, WAKE);
    await Promise.all(ids.map((id) => this.service.enqueue(workspaceId, id)));
  }

  private record(
    step: StoredStep,
    n: number,
    status: StepRecord['status'],
    input: unknown,
    output: unknown,
    error: StepRecord['error'],
    attempts: number,
    at: Date | null,
    t0?: number,
  ): StepRecord {
    return {
      step_uuid: step.uuid,
      step_number: n,
      key: (step.trigger_key ?? step.action_key)!,
      status,
      input,
      output,
      error,
      attempts,
      started_at: at?.toISOString() ?? null,
      duration_ms: t0 === undefined ? (at ? 0 : null) : Math.round(performance.now() - t0),
    };
  }
}
