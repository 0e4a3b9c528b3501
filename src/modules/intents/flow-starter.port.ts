import { declarePort } from '@/modules/ports';
import type { WorkspaceId } from '@/common/auth/workspace-id';

/**
 * What the `scenario` action needs of automation flows. The flows module implements it (FlowStarter);
 * PortBindingsModule binds it.
 */
export const FLOW_STARTER = declarePort('FLOW_STARTER', 'intents');

export interface FlowStarter {
  /** Whether the flow is a deployed flow of the workspace. */
  isDeployed(workspaceId: WorkspaceId, flowId: string): Promise<boolean>;
  /** Starts the flow whatever its trigger type; `triggerData` becomes the trigger step's output (`step1`). */
  start(
    workspaceId: WorkspaceId,
    flowId: string,
    triggerData: Record<string, unknown>,
  ): Promise<{ execution_uuid: string }>;
}
