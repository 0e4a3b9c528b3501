import type { EntityManager } from 'typeorm';
import type { AgentResponse } from '@/modules/agents/dto/agent.response';
import type { ConversationRef } from '@/modules/conversations/conversation.entity';
import type { TurnAction } from '@/modules/conversations/dto/responses';
import type { Message } from '@/modules/conversations/message.entity';
import type { WorkspaceId } from '@/common/auth/workspace-id';

/** One call of the agent's tools, as stored (JSON, the `tool` message's content) and reported (`tool-call`). */
export interface ToolCallRecord {
  /** The intent's key. */
  intent: string;
  parameters: Record<string, unknown>;
  status: string;
  result: unknown;
  duration_ms: number;
}

/** What a turn hands its tools (ToolLoop) and, through them, an intent's action. */
export interface TurnToolsContext {
  workspaceId: WorkspaceId;
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

/** What the turn's tools answer. */
export interface ToolTurnResult {
  /** What the agent says; null when nothing is to be said (no model and no webhook `response`). */
  content: string | null;
  /** A hand-over to another agent, for the call runtime to follow. */
  action: TurnAction | null;
}
