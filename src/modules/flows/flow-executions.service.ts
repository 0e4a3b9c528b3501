import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import { AppException } from '@/common/errors/app.exception';
import { Page, pageOf, skipTake } from '@/common/http/pagination';
import { Transaction, UnitOfWork } from '@/common/persistence/unit-of-work';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { ListExecutionsQuery } from './dto/flow.dto';
import { ExecutionResponse } from './dto/flow.response';
import { FlowExecution } from './flow.entity';
import { executionView } from './flow-view';
import { FlowExecutionsRepository, NewExecution } from './executions.repository';
import { FlowsRepository } from './flows.repository';

type RunJob = JobPayloads['flows']['run-execution'];

/** Executions: creating and queueing them, reading them, and retry from the failed step (13.5). */
@Injectable()
export class FlowExecutionsService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly executions: FlowExecutionsRepository,
    private readonly flows: FlowsRepository,
    @InjectQueue(QUEUES.flows) private readonly queue: Queue<RunJob>,
  ) {}

  /**
   * Queues a run for the execution's workspace: it starts the oldest waiting executions for the free slots (a no-op
   * when none is free) and runs them; or, with `resume`, the rest of this running one after `delayMs`. Several jobs
   * are harmless: each execution is started once, under the workspace's lock.
   */
  async enqueue(
    workspaceId: WorkspaceId,
    executionId: string,
    options: { delayMs?: number; resume?: boolean } = {},
  ): Promise<void> {
    const delayMs = options.delayMs ?? 0;
    await this.queue.add(
      'run-execution',
      { workspaceId, executionId, ...(options.resume ? { resume: true } : {}) },
      {
        jobId: `run:${executionId}:${options.resume ? 'resume:' : ''}${Date.now() + delayMs}:${Math.random().toString(36).slice(2, 8)}`,
        delay: delayMs,
        attempts: 3,
        removeOnComplete: true,
        removeOnFail: 1000,
      },
    );
  }

  /** Inserts queued executions in the caller's transaction; answers the ids made (to queue after commit). */
  create(tx: Transaction, workspaceId: WorkspaceId, rows: NewExecution[]): Promise<string[]> {
    return this.executions.insertQueued(tx, workspaceId, rows);
  }

  /** Starts a deployed flow with trigger data now, whatever its trigger (webhook hooks, intent scenarios). */
  async startDeployed(
    workspaceId: WorkspaceId,
    flowId: string,
    data: unknown,
    options: { key?: string; chain?: readonly string[] } = {},
  ): Promise<string> {
    const ids = await this.unitOfWork.run(async (tx) => {
      const flow = await this.flows.lock(tx, workspaceId, flowId);
      if (!flow || flow.status !== 'deployed' || flow.liveVersion === null)
        throw AppException.notFound('Flow');
      return this.create(tx, workspaceId, [
        {
          flowId,
          version: flow.liveVersion,
          trigger: { key: options.key ?? flow.triggerKey ?? 'webhook', event_uuid: null, data },
          triggerRef: null,
          chain: options.chain ?? [],
        },
      ]);
    });
    await this.enqueue(workspaceId, ids[0]);
    return ids[0];
  }

  async list(
    workspaceId: WorkspaceId,
    flowId: string,
    q: ListExecutionsQuery,
  ): Promise<Page<ExecutionResponse>> {
    await this.flowExists(workspaceId, flowId);
    const [rows, total] = await this.executions.list(workspaceId, flowId, {
      status: q.status,
      from: q.from ? new Date(q.from) : undefined,
      to: q.to ? new Date(q.to) : undefined,
      ...skipTake(q),
    });
    return pageOf(
      rows.map((e) => executionView(e, false)),
      total,
      q,
    );
  }

  async get(workspaceId: WorkspaceId, flowId: string, id: string): Promise<ExecutionResponse> {
    return executionView(await this.entity(workspaceId, flowId, id), true);
  }

  /**
   * A failed execution again, as a new one (`retry_of`) on the same version: the steps that succeeded keep their
   * outputs and it starts at the step that failed. Other statuses: 409.
   */
  async retry(workspaceId: WorkspaceId, flowId: string, id: string): Promise<ExecutionResponse> {
    const made = await this.unitOfWork.run(async (tx) => {
      const e = await this.entity(workspaceId, flowId, id);
      if (e.status !== 'failed') throw AppException.conflict(`Execution is ${e.status}`);
      const failedAt = e.steps.findIndex((s) => s.status === 'failed');
      const resumeAt = failedAt < 0 ? e.steps.length : failedAt;
      const [newId] = await this.create(tx, workspaceId, [
        {
          flowId,
          version: e.version,
          trigger: e.trigger,
          triggerRef: null,
          chain: e.chain.slice(0, -1),
          retryOf: e.id,
          resumeAt,
          steps: e.steps.slice(0, resumeAt),
        },
      ]);
      return newId;
    });
    await this.enqueue(workspaceId, made);
    return this.get(workspaceId, flowId, made);
  }

  private async entity(workspaceId: WorkspaceId, flowId: string, id: string): Promise<FlowExecution> {
    await this.flowExists(workspaceId, flowId);
    const e = await this.executions.findOne(workspaceId, { id, flowId });
    if (!e) throw AppException.notFound('Execution');
    return e;
  }

  private async flowExists(workspaceId: WorkspaceId, flowId: string): Promise<void> {
    if (!(await this.flows.exists(workspaceId, { id: flowId }))) throw AppException.notFound('Flow');
  }
}
