import { declarePort } from '@/modules/ports';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { IntentTool } from './tool-definitions';
import type { TurnToolsContext } from './turn-tools';

/**
 * The intents' actions inside a turn (the intents module implements it): the deployed action of each of an agent's
 * intents, for the tool catalog, and running the action of a tool the model called.
 */
export const INTENT_ACTIONS = declarePort('INTENT_ACTIONS', 'runtime');

/** The kinds of an intent's action. */
export const ACTION_TYPES = ['webhook', 'agent', 'scenario', 'app'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

/** The stored configuration of each kind; only the keys of its kind are kept. */
export interface ActionConfig {
  url?: string;
  auth_token?: string | null;
  agent_uuid?: string;
  flow_uuid?: string;
  app?: 'tables';
  action?: 'ai_query';
  table_uuid?: string;
  max_results?: number;
  query_description?: string | null;
}

/** An intent's deployed action, as its tool carries it. */
export interface DeployedAction {
  type: ActionType;
  config: ActionConfig;
}

export type CallStatus = 'succeeded' | 'failed' | 'timeout';

export interface ActionOutcome {
  status: CallStatus;
  /** What the model is told (the answer, or why it failed). */
  result: unknown;
  /** A webhook answer's `response` text, said as is when the intent does not hand it to the model. */
  response: string | null;
  /** The agent the conversation was handed to. */
  handedTo: { uuid: string; name: string } | null;
  error: string | null;
  /** What was sent, for the action log. */
  request: Record<string, unknown>;
}

export interface IntentActions {
  /** The deployed actions of an agent's intents, by intent id. */
  deployedOf(workspaceId: WorkspaceId, agentId: string): Promise<Map<string, DeployedAction>>;
  /**
   * Runs the tool's deployed action, or else its intent's own webhook, or the built-in tool; never throws (a failure
   * is an outcome).
   */
  run(tool: IntentTool, parameters: Record<string, unknown>, ctx: TurnToolsContext): Promise<ActionOutcome>;
}
