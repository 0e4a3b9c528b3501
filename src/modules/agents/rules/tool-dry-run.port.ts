import { declarePort } from '@/modules/ports';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { AgentResponse } from '../dto/agent.response';

/**
 * Which of the agent's intents (its tools) the model, or without one the local classifier, would call for an
 * utterance, without running any: the tool part of the rule test (`POST /agents/{uuid}/rules/test`). The runtime
 * module's tool catalog implements it; PortBindingsModule binds it.
 */
export const TOOL_DRY_RUN = declarePort('TOOL_DRY_RUN', 'agents');

export interface ToolDryRunCall {
  intent_uuid: string;
  key: string;
  name: string;
  parameters: Record<string, unknown>;
  valid: boolean;
  errors: string[];
  score: number | null;
}

export interface ToolDryRun {
  method: 'llm' | 'local';
  calls: ToolDryRunCall[];
  note: string | null;
}

export interface ToolDryRunner {
  dryRun(
    workspaceId: WorkspaceId,
    agent: AgentResponse,
    utterance: string,
    channel: string,
  ): Promise<ToolDryRun>;
}
