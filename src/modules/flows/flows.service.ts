import { Inject, Injectable } from '@nestjs/common';
import { AppException, FieldError } from '@/common/errors/app.exception';
import { Page, pageOf, skipTake } from '@/common/http/pagination';
import { outboundUrlProblem } from '@/common/net/outbound-http';
import { Transaction, UnitOfWork } from '@/common/persistence/unit-of-work';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { catalogEntry, configErrors } from './catalog';
import { AddStepDto, CreateFlowDto, ListFlowsQuery, UpdateFlowDto, UpdateStepDto } from './dto/flow.dto';
import { FlowResponse } from './dto/flow.response';
import { Flow } from './flow.entity';
import { flowView } from './flow-view';
import { FlowExecutionsRepository } from './executions.repository';
import { FlowsRepository } from './flows.repository';
import { hasReference } from './steps/references';
import { checkReferences, deleteStep, insertStep, StoredStep, subtree } from './steps/step-tree';

/** Flows and their draft steps. Every edit locks the flow row and rewrites the step list in one transaction. */
@Injectable()
export class FlowsService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly flows: FlowsRepository,
    private readonly executions: FlowExecutionsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async list(workspaceId: WorkspaceId, q: ListFlowsQuery): Promise<Page<FlowResponse>> {
    const [rows, total] = await this.flows.list(workspaceId, {
      status: q.status,
      search: q.search?.trim() || undefined,
      ...skipTake(q),
    });
    return pageOf(rows.map(flowView), total, q);
  }

  async create(workspaceId: WorkspaceId, dto: CreateFlowDto): Promise<FlowResponse> {
    const flow = this.flows.build(workspaceId, {
      name: dto.name.trim(),
      description: dto.description ?? null,
      status: 'draft',
      steps: [],
      liveVersion: null,
      hasUndeployedChanges: false,
      triggerKey: null,
      triggerConfig: null,
      webhookToken: null,
      deployedAt: null,
      disabledAt: null,
    });
    await this.flows.save(workspaceId, flow);
    return flowView(flow);
  }

  async get(workspaceId: WorkspaceId, id: string): Promise<Flow> {
    const flow = await this.flows.findById(workspaceId, id);
    if (!flow) throw AppException.notFound('Flow');
    return flow;
  }

  async update(workspaceId: WorkspaceId, id: string, dto: UpdateFlowDto): Promise<FlowResponse> {
    return this.edit(workspaceId, id, async (flow) => {
      if (dto.name !== undefined) flow.name = dto.name.trim();
      if (dto.description !== undefined) flow.description = dto.description ?? null;
    });
  }

  /** A deployed flow is refused (disable it first); the flow's queued executions go with it. */
  async remove(workspaceId: WorkspaceId, id: string): Promise<void> {
    await this.unitOfWork.run(async (tx) => {
      const flow = await this.locked(tx, workspaceId, id);
      if (flow.status === 'deployed') throw AppException.conflict('Flow is deployed: disable it first');
      await this.executions.cancelQueued(tx, workspaceId, id);
      await this.flows.delete(workspaceId, { id }, tx);
    });
  }

  async addStep(workspaceId: WorkspaceId, id: string, dto: AddStepDto): Promise<FlowResponse> {
    const key = this.stepKey(dto.kind, dto.kind === 'trigger' ? dto.trigger_key : dto.action_key);
    const config = dto.config ?? {};
    return this.edit(
      workspaceId,
      id,
      async (flow) => {
        const { steps, step } = insertStep(flow.steps, {
          kind: dto.kind,
          key,
          name: dto.name ?? null,
          config,
          insertAfter: dto.insert_after_step_uuid?.toLowerCase(),
          parent: dto.parent_step_uuid?.toLowerCase(),
          branch: dto.branch_key,
        });
        this.checkConfig(step);
        flow.steps = steps;
      },
      true,
    );
  }

  async updateStep(
    workspaceId: WorkspaceId,
    id: string,
    stepId: string,
    dto: UpdateStepDto,
  ): Promise<FlowResponse> {
    return this.edit(
      workspaceId,
      id,
      async (flow) => {
        const i = flow.steps.findIndex((s) => s.uuid === stepId);
        if (i < 0) throw AppException.notFound('Step');
        const step = { ...flow.steps[i] };
        if (step.kind === 'trigger' && dto.trigger_key !== undefined)
          step.trigger_key = this.stepKey('trigger', dto.trigger_key);
        if (step.kind === 'action' && dto.action_key !== undefined) {
          const key = this.stepKey('action', dto.action_key);
          if (step.action_key === 'condition' && key !== 'condition' && subtree(flow.steps, i) > 1)
            throw AppException.conflict(
              'The condition has steps in its branches: delete them before changing its action',
            );
          step.action_key = key;
        }
        if (dto.name !== undefined) step.name = dto.name ?? null;
        if (dto.config !== undefined) step.config = dto.config;
        checkReferences(step.config, i + 1);
        this.checkConfig(step);
        flow.steps = flow.steps.map((s, j) => (j === i ? step : s));
      },
      true,
    );
  }

  async removeStep(workspaceId: WorkspaceId, id: string, stepId: string): Promise<FlowResponse> {
    return this.edit(
      workspaceId,
      id,
      async (flow) => {
        flow.steps = deleteStep(flow.steps, stepId);
      },
      true,
    );
  }

  /** Locks the flow, applies the change and saves it, in one transaction. */
  private async edit(
    workspaceId: WorkspaceId,
    id: string,
    change: (flow: Flow, tx: Transaction) => Promise<void>,
    stepsChanged = false,
  ): Promise<FlowResponse> {
    const flow = await this.unitOfWork.run(async (tx) => {
      const f = await this.locked(tx, workspaceId, id);
      await change(f, tx);
      // Edits change the draft only: a deployed flow keeps running its live version.
      if (stepsChanged && f.liveVersion !== null) f.hasUndeployedChanges = true;
      await this.flows.save(workspaceId, f, tx);
      return f;
    });
    return flowView(flow);
  }

  async locked(tx: Transaction, workspaceId: WorkspaceId, id: string): Promise<Flow> {
    const flow = await this.flows.lock(tx, workspaceId, id);
    if (!flow) throw AppException.notFound('Flow');
    return flow;
  }

  private stepKey(kind: 'trigger' | 'action', key: string | undefined): string {
    const field = kind === 'trigger' ? 'trigger_key' : 'action_key';
    if (!key) throw AppException.invalid(field, `${field} is required with kind ${kind}`, 'VALIDATION_ERROR');
    if (!catalogEntry(kind, key))
      throw AppException.invalid(field, `${field} ${key} is not in the flow catalog`);
    return key;
  }

  /** Wrong formats are refused now (422); missing values stay listed in `validation_errors` until deploy. */
  private checkConfig(step: StoredStep): void {
    const entry = catalogEntry(step.kind, (step.trigger_key ?? step.action_key)!)!;
    const errors: FieldError[] = configErrors(entry, step.config).filter(
      (e) => e.code !== 'VALIDATION_ERROR',
    );
    const url = step.config.url;
    if (step.action_key === 'send_webhook' && typeof url === 'string' && !hasReference(url)) {
      const problem = outboundUrlProblem(url, { allowPrivate: this.config.network.allowPrivateTargets });
      if (problem)
        errors.push({ code: 'INVALID_FORMAT', field: 'config.url', message: `config.url ${problem}` });
    }
    if (errors.length) throw AppException.validation(errors);
  }
}
