import { Injectable } from '@nestjs/common';
import type {
  ActionOutcome,
  DeployedAction,
  IntentActions,
} from '@/modules/runtime/tools/intent-actions.port';
import type { IntentTool } from '@/modules/runtime/tools/tool-definitions';
import type { TurnToolsContext } from '@/modules/runtime/tools/turn-tools';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { IntentActionsRepository } from '../tools/intent-actions.repository';
import { ActionExecutor } from './action-executor.service';

/**
 * The intents' actions as a turn's tools use them: the runtime module's INTENT_ACTIONS port (bound by
 * PortBindingsModule). The deployed actions come from `intent_actions`; ActionExecutor runs one.
 */
@Injectable()
export class TurnIntentActions implements IntentActions {
  constructor(
    private readonly actions: IntentActionsRepository,
    private readonly executor: ActionExecutor,
  ) {}

  deployedOf(workspaceId: WorkspaceId, agentId: string): Promise<Map<string, DeployedAction>> {
    return this.actions.deployedOf(workspaceId, agentId);
  }

  run(tool: IntentTool, parameters: Record<string, unknown>, ctx: TurnToolsContext): Promise<ActionOutcome> {
    return this.executor.run(tool, parameters, ctx);
  }
}
