import { Injectable } from '@nestjs/common';
import { currentChain } from '@/modules/events/event-chain';
import { FlowExecutionsService } from './flow-executions.service';

/**
 * For other modules (an intent's `scenario` action): starts a deployed flow of the workspace with trigger data,
 * whatever its trigger; `step1` is that data. Answers the execution's uuid; a flow that is not deployed is 404.
 */
@Injectable()
export class FlowStarter {
  constructor(private readonly executions: FlowExecutionsService) {}

  start(workspaceId: string, flowUuid: string, data: Record<string, unknown>): Promise<string> {
    return this.executions.startDeployed(workspaceId, flowUuid.toLowerCase(), data, {
      key: 'scenario',
      chain: currentChain() ?? [],
    });
  }
}
