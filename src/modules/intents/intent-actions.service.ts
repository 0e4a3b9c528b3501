import { Inject, Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import { AgentsService } from '@/modules/agents/agents.service';
import { TableSearch } from '@/modules/knowledge/table-search.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { IntentActionConfigDto, IntentActionResponse, PutIntentActionDto } from './dto/intent-action.dto';
import { FLOW_STARTER, FlowStarter } from './flow-starter.port';
import { ActionConfig, IntentAction } from './tools/intent-action.entity';
import { IntentActionsRepository } from './tools/intent-actions.repository';

const DEFAULT_MAX_RESULTS = 5;

export function actionResponse(a: IntentAction): IntentActionResponse {
  return {
    uuid: a.id,
    intent_uuid: a.intentId,
    type: a.type,
    status: a.status,
    config: { ...a.config },
    created_at: a.createdAt.toISOString(),
    updated_at: a.updatedAt.toISOString(),
  };
}

const required = (field: string) =>
  AppException.invalid(`config.${field}`, `config.${field} is required for this type`, 'VALIDATION_ERROR');

/** An intent's one action: set (as a draft), read, published. */
@Injectable()
export class IntentActionsService {
  constructor(
    private readonly actions: IntentActionsRepository,
    private readonly agents: AgentsService,
    private readonly tables: TableSearch,
    private readonly unitOfWork: UnitOfWork,
    @Inject(FLOW_STARTER) private readonly flows: FlowStarter,
  ) {}

  /** 404 for an agent or intent not in this workspace. */
  private async intentOf(workspaceId: WorkspaceId, agentId: string, intentId: string): Promise<void> {
    const agent = await this.agents.view(workspaceId, agentId);
    if (!agent.intents.some((i) => i.intent_uuid === intentId)) throw AppException.notFound('Intent');
  }

  async get(workspaceId: WorkspaceId, agentId: string, intentId: string): Promise<IntentActionResponse> {
    await this.intentOf(workspaceId, agentId, intentId);
    const action = await this.actions.forIntent(workspaceId, intentId);
    if (!action) throw AppException.notFound('Intent action');
    return actionResponse(action);
  }

  async put(
    workspaceId: WorkspaceId,
    agentId: string,
    intentId: string,
    dto: PutIntentActionDto,
  ): Promise<IntentActionResponse> {
    await this.intentOf(workspaceId, agentId, intentId);
    const config = await this.configFor(workspaceId, agentId, dto.type, dto.config);
    await this.actions.upsert(workspaceId, { agentId, intentId, type: dto.type, config });
    return actionResponse((await this.actions.forIntent(workspaceId, intentId))!);
  }

  /** draft → deployed; a scenario needs a deployed flow, an agent or table its target still there. */
  async publish(workspaceId: WorkspaceId, agentId: string, intentId: string): Promise<IntentActionResponse> {
    await this.intentOf(workspaceId, agentId, intentId);
    const saved = await this.unitOfWork.run(async (m) => {
      const action = await this.actions.lockForIntent(workspaceId, intentId, m);
      if (!action) throw AppException.notFound('Intent action');
      if (action.status === 'deployed') throw AppException.conflict('Intent action is deployed');
      await this.assertRunnable(workspaceId, action);
      action.status = 'deployed';
      return this.actions.save(workspaceId, action, m);
    });
    return actionResponse(saved);
  }

  private async assertRunnable(workspaceId: WorkspaceId, action: IntentAction): Promise<void> {
    const c = action.config;
    if (action.type === 'scenario') {
      if (!(await this.flows.isDeployed(workspaceId, c.flow_uuid!)))
        throw AppException.conflict(`Flow ${c.flow_uuid} is not deployed`);
    }
    if (action.type === 'agent')
      await this.agents.view(workspaceId, c.agent_uuid!).catch(() => {
        throw AppException.conflict(`Agent ${c.agent_uuid} no longer exists`);
      });
    if (action.type === 'app')
      await this.tables.assertTable(workspaceId, c.table_uuid!).catch(() => {
        throw AppException.conflict(`Data table ${c.table_uuid} no longer exists`);
      });
  }

  /** Only the keys of the type, each checked; targets must be in this workspace (422 on the field otherwise). */
  private async configFor(
    workspaceId: WorkspaceId,
    agentId: string,
    type: PutIntentActionDto['type'],
    c: IntentActionConfigDto,
  ): Promise<ActionConfig> {
    switch (type) {
      case 'webhook':
        if (!c.url) throw required('url');
        return { url: c.url, auth_token: c.auth_token ?? null };
      case 'agent':
        if (!c.agent_uuid) throw required('agent_uuid');
        if (c.agent_uuid.toLowerCase() === agentId.toLowerCase())
          throw AppException.invalid(
            'config.agent_uuid',
            'config.agent_uuid must be another agent',
            'VALIDATION_ERROR',
          );
        await this.agents.view(workspaceId, c.agent_uuid).catch(() => {
          throw AppException.invalid(
            'config.agent_uuid',
            'config.agent_uuid names no agent of this workspace',
            'VALIDATION_ERROR',
          );
        });
        return { agent_uuid: c.agent_uuid.toLowerCase() };
      case 'scenario':
        if (!c.flow_uuid) throw required('flow_uuid');
        return { flow_uuid: c.flow_uuid.toLowerCase() };
      case 'app':
        if (!c.app) throw required('app');
        if (!c.action) throw required('action');
        if (!c.table_uuid) throw required('table_uuid');
        await this.tables.assertTable(workspaceId, c.table_uuid).catch(() => {
          throw AppException.invalid(
            'config.table_uuid',
            'config.table_uuid names no data table of this workspace',
            'VALIDATION_ERROR',
          );
        });
        return {
          app: c.app,
          action: c.action,
          table_uuid: c.table_uuid.toLowerCase(),
          max_results: c.max_results ?? DEFAULT_MAX_RESULTS,
          query_description: c.query_description ?? null,
        };
    }
  }
}
