import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { currentChain } from '@/modules/events/event-chain';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { FlowExecutionsService } from './flow-executions.service';
import { FlowsRepository } from './flows.repository';

/**
 * For other modules (an intent's `scenario` action): starts a deployed flow of the workspace with trigger data,
 * whatever its trigger; `step1` is that data. A flow that is not deployed is 404.
 */
@Injectable()
export class FlowStarter {
  constructor(
    private readonly executions: FlowExecutionsService,
    private readonly flows: FlowsRepository,
  ) {}

  /** Whether the flow is a deployed flow of the workspace (a live version runs). */
  async isDeployed(workspaceId: WorkspaceId, flowUuid: string): Promise<boolean> {
    if (!isUUID(flowUuid)) return false;
    const flow = await this.flows.findById(workspaceId, flowUuid.toLowerCase());
    return !!flow && flow.status === 'deployed' && flow.liveVersion !== null;
  }

  /** Queues an execution of the flow's live version; answers its uuid. */
  async start(
    workspaceId: WorkspaceId,
    flowUuid: string,
    data: Record<string, unknown>,
  ): Promise<{ execution_uuid: string }> {
    const id = await this.executions.startDeployed(workspaceId, flowUuid.toLowerCase(), data, {
      key: 'scenario',
      chain: currentChain() ?? [],
    });
    return { execution_uuid: id };
  }
}
