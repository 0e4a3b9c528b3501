import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AppException, FieldError } from '@/common/errors/app.exception';
import { Page, PageQuery, pageOf, skipTake } from '@/common/http/pagination';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { FlowResponse, FlowVersionResponse } from './dto/flow.response';
import { Flow } from './flow.entity';
import { FlowSchedules } from './flow-schedules';
import { flowView, stepErrors, versionView } from './flow-view';
import { FlowsService } from './flows.service';
import { FlowsRepository, FlowVersionsRepository } from './flows.repository';

/** The address the webhook trigger is called at: PUBLIC_BASE_URL when configured, else the service's own. */
export function hookBaseUrl(config: AppConfig): string {
  const configured = (config as AppConfig & { publicBaseUrl?: string }).publicBaseUrl;
  return (configured ?? `https://${config.serviceDomain}:${config.port}`).replace(/\/+$/, '');
}

/** Deploy, disable, enable, undeploy, versions and restore (13.4); each move locks the flow row. */
@Injectable()
export class FlowStatesService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly flowsService: FlowsService,
    private readonly flows: FlowsRepository,
    private readonly versions: FlowVersionsRepository,
    private readonly schedules: FlowSchedules,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Every step valid, a trigger and at least one action; the draft becomes version n+1 and goes live. */
  async deploy(workspaceId: WorkspaceId, id: string): Promise<FlowResponse> {
    const flow = await this.unitOfWork.run(async (tx) => {
      const f = await this.flowsService.locked(tx, workspaceId, id);
      this.checkDeployable(f);
      const trigger = f.steps[0];
      if (trigger.trigger_key === 'webhook') {
        f.webhookToken ??= randomBytes(16).toString('hex');
        trigger.config = {
          ...trigger.config,
          url: `${hookBaseUrl(this.config)}/hooks/v1/flows/${f.id}/${f.webhookToken}`,
        };
        f.steps = [trigger, ...f.steps.slice(1)];
      }
      const n = (await this.versions.latestNumber(tx, workspaceId, f.id)) + 1;
      const now = new Date();
      await this.versions.save(
        workspaceId,
        this.versions.build(workspaceId, { flowId: f.id, versionNumber: n, steps: f.steps, deployedAt: now }),
        tx,
      );
      f.status = 'deployed';
      f.liveVersion = n;
      f.hasUndeployedChanges = false;
      f.triggerKey = trigger.trigger_key;
      f.triggerConfig = trigger.config;
      f.deployedAt = now;
      f.disabledAt = null;
      await this.flows.save(workspaceId, f, tx);
      return f;
    });
    await this.afterGoingLive(flow);
    return flowView(flow);
  }

  disable(workspaceId: WorkspaceId, id: string): Promise<FlowResponse> {
    return this.move(workspaceId, id, ['deployed'], (f) => {
      f.status = 'disabled';
      f.disabledAt = new Date();
    });
  }

  async enable(workspaceId: WorkspaceId, id: string): Promise<FlowResponse> {
    const view = await this.move(workspaceId, id, ['disabled'], (f) => {
      f.status = 'deployed';
      f.disabledAt = null;
    });
    await this.afterGoingLive(await this.flowsService.get(workspaceId, id));
    return view;
  }

  undeploy(workspaceId: WorkspaceId, id: string): Promise<FlowResponse> {
    return this.move(workspaceId, id, ['deployed', 'disabled'], (f) => {
      f.status = 'draft';
      f.liveVersion = null;
      f.triggerKey = null;
      f.triggerConfig = null;
      f.hasUndeployedChanges = false;
      f.disabledAt = null;
    });
  }

  async listVersions(workspaceId: WorkspaceId, id: string, q: PageQuery): Promise<Page<FlowVersionResponse>> {
    await this.flowsService.get(workspaceId, id);
    const [rows, total] = await this.versions.findAndCount(workspaceId, {
      where: { flowId: id },
      order: { versionNumber: 'DESC' },
      ...skipTake(q),
    });
    return pageOf(rows.map(versionView), total, q);
  }

  async version(workspaceId: WorkspaceId, id: string, n: number): Promise<FlowVersionResponse> {
    await this.flowsService.get(workspaceId, id);
    const v = await this.versions.get(workspaceId, id, n);
    if (!v) throw AppException.notFound('Version');
    return versionView(v);
  }

  /** Copies version n into the draft; what is live does not change. */
  async restore(workspaceId: WorkspaceId, id: string, n: number): Promise<FlowResponse> {
    const flow = await this.unitOfWork.run(async (tx) => {
      const f = await this.flowsService.locked(tx, workspaceId, id);
      const v = await this.versions.get(workspaceId, id, n);
      if (!v) throw AppException.notFound('Version');
      f.steps = v.steps;
      f.hasUndeployedChanges = f.liveVersion !== null && f.liveVersion !== n;
      await this.flows.save(workspaceId, f, tx);
      return f;
    });
    return flowView(flow);
  }

  private async move(
    workspaceId: WorkspaceId,
    id: string,
    from: Flow['status'][],
    apply: (f: Flow) => void,
  ): Promise<FlowResponse> {
    const flow = await this.unitOfWork.run(async (tx) => {
      const f = await this.flowsService.locked(tx, workspaceId, id);
      if (!from.includes(f.status)) throw AppException.conflict(`Flow is ${f.status}`);
      apply(f);
      await this.flows.save(workspaceId, f, tx);
      return f;
    });
    return flowView(flow);
  }

  private checkDeployable(f: Flow): void {
    if (!f.steps.length || f.steps[0].kind !== 'trigger')
      throw AppException.invalid('steps', 'A flow needs a trigger to deploy', 'VALIDATION_ERROR');
    if (f.steps.length < 2)
      throw AppException.invalid('steps', 'A flow needs at least one action to deploy', 'VALIDATION_ERROR');
    const errors: FieldError[] = f.steps.flatMap((s, i) =>
      stepErrors(s).map((e) => ({
        code: 'VALIDATION_ERROR' as const,
        field: `steps.${i + 1}.${e.field}`,
        message: `steps.${i + 1}.${e.message}`,
      })),
    );
    if (errors.length) throw AppException.validation(errors);
  }

  private async afterGoingLive(f: Flow): Promise<void> {
    if (f.status === 'deployed' && f.triggerKey === 'schedule' && f.liveVersion !== null)
      await this.schedules.scheduleNext(f.workspaceId, f.id, f.liveVersion, f.triggerConfig ?? {});
  }
}
