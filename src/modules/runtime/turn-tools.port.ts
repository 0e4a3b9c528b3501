import type { EntityManager } from 'typeorm';
import type { AgentResponse } from '@/modules/agents/dto/agent.response';
import { declarePort } from '@/modules/ports';
import type { ChatMessage } from '@/providers/llm/language-model.port';
import type { ConversationRef } from '@/modules/conversations/conversation.entity';
import type { TurnAction } from '@/modules/conversations/dto/responses';
import type { Message } from '@/modules/conversations/message.entity';

/**
 * The agent's tools inside a turn (the intents module implements it): the reply's model call with the agent's
 * intents offered as functions, or, without a model, the intent the local classifier fires.
 */
export const TURN_TOOLS = declarePort('TURN_TOOLS', 'runtime');

/** One call of the agent's tools, as stored (JSON, the `tool` message's content) and reported (`tool-call`). */
export interface ToolCallRecord {
  /** The intent's key. */
  intent: string;
  parameters: Record<string, unknown>;
  status: string;
  result: unknown;
  duration_ms: number;
}

export interface TurnToolsContext {
  workspaceId: string;
  conversation: ConversationRef;
  agent: AgentResponse;
  /** Stores the call as a `system` message of type `tool`; `within` writes its records in the same transaction. */
  recordTool(
    call: ToolCallRecord,
    within: (m: EntityManager, message: Message) => Promise<void>,
  ): Promise<Message>;
  /** Hands the conversation to another agent of the workspace. */
  handOver(agentId: string): Promise<void>;
  /**
   * Settles once the turn's customer message is stored (the model is asked while it is being written): a tool acts
   * only after it, and not at all when the write failed.
   */
  ready?: Promise<unknown>;
  /**
   * Aborts the model's requests of a turn cancelled before its commit (`ready` then rejects too: no tool runs).
   */
  signal?: AbortSignal;
}

export interface ToolTurnResult {
  /** What the agent says; null when nothing is to be said (no model and no webhook `response`). */
  content: string | null;
  /** A hand-over to another agent, for the call runtime to follow. */
  action: TurnAction | null;
}

export interface TurnTools {
  /**
   * The model's reply with tools offered and run (at most 3 calls); throws LlmError when the model fails. With
   * `onDelta`, a round that offers no tool streams its text as it is written.
   */
  chat(
    messages: ChatMessage[],
    ctx: TurnToolsContext,
    onDelta?: (text: string) => void,
  ): Promise<ToolTurnResult>;
  /** Without a model: the intent whose phrases match above its threshold runs; null when none does. */
  withoutModel(utterance: string, ctx: TurnToolsContext): Promise<ToolTurnResult | null>;
}
