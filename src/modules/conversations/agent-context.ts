import { AppException } from '@/common/errors/app.exception';
import { AgentNotFound } from '@/common/errors/domain-errors';
import type { AgentResponse } from '@/modules/agents/dto/agent.response';
import type { EvaluationFeature } from '@/modules/agents/settings/evaluation-settings';
import type { WorkspaceId } from '@/common/auth/workspace-id';

/** One analyzer of the evaluation settings. */
export type { EvaluationFeature } from '@/modules/agents/settings/evaluation-settings';

export interface EvaluationSettingsShape {
  is_active: boolean;
  report_language: string;
  sessionization: { timeout_minutes: number };
  text: Record<string, EvaluationFeature>;
  voice: Record<string, EvaluationFeature>;
}

export interface EffectiveEvaluation {
  settings: EvaluationSettingsShape;
  version: number;
}

/** A session's idle timeout under these evaluation settings, in milliseconds. */
export function sessionTimeoutMs({ settings }: EffectiveEvaluation): number {
  return Math.max(1000, Math.round(settings.sessionization.timeout_minutes * 60_000));
}

/**
 * The memorize keys the conversation runtime reads (see docs/api.md): which contact fields go into the reply prompt
 * and may be updated after a session, and how many recent session summaries are remembered.
 */
export interface MemorizeSettingsShape {
  is_active: boolean;
  contact_field_settings: Record<string, unknown>;
  conversation_settings: Record<string, unknown>;
  channel_settings: Record<string, unknown>;
}

/** Everything a turn reads of its agent, read together (`AgentContextReader.forTurn`). */
export interface TurnContext {
  agent: AgentResponse;
  evaluation: EffectiveEvaluation;
  memorize: MemorizeSettingsShape;
  /**
   * The workspace's agent configuration version as of the read (every change to the agent, its collections, numbers
   * or settings, the workspace defaults included, moves it); null when nothing was ever configured.
   */
  version: string | null;
  /** Whether the agent has any knowledge passage (a turn of an agent without any skips the search). */
  hasKnowledge?: boolean;
}

/** What the conversation runtime needs of an agent, read through the agents module's services. */
export abstract class AgentContextReader {
  /**
   * The agent with its evaluation and memorize settings, in one read (404 like `agent`). With `version` (the
   * workspace's agent configuration version read just before, e.g. with a live call's row), a context kept from an
   * earlier read at that same version is answered without reading; any other version reads again. The answer is
   * shared: callers never change it.
   */
  abstract forTurn(workspaceId: WorkspaceId, agentId: string, version?: string | null): Promise<TurnContext>;
  /** The whole agent (profile, knowledge, rules) or 404 RESOURCE_NOT_FOUND. */
  abstract agent(workspaceId: WorkspaceId, agentId: string): Promise<AgentResponse>;
  /** The agent's effective evaluation settings (its override, else the workspace default) and their version. */
  abstract evaluation(workspaceId: WorkspaceId, agentId: string | null): Promise<EffectiveEvaluation>;
  abstract memorize(workspaceId: WorkspaceId, agentId: string): Promise<MemorizeSettingsShape>;
}

/** An agent named in a request body: one that is not in this workspace is 422 on that field, not 404. */
export function agentInBody(
  reader: AgentContextReader,
  workspaceId: WorkspaceId,
  agentId: string,
  field = 'agent_uuid',
): Promise<AgentResponse> {
  return reader.agent(workspaceId, agentId).catch((err: unknown) => {
    if (err instanceof AgentNotFound)
      throw AppException.invalid(field, `${field} names no agent of this workspace`, 'VALIDATION_ERROR');
    throw err;
  });
}

/** A contact as the runtime sees it. */
export interface ContactView {
  uuid: string;
  fields: Record<string, unknown>;
}

/** How memorize may write one contact field (its analyzer), and what the model is told about the field. */
export interface FieldAnalyzerView {
  updateBehavior:
    'dont_update' | 'update_if_empty' | 'ask_approval_if_existing' | 'manual_approval' | 'automatic_update';
  analysisGoals: string | null;
  exampleValues: string | null;
}

/** A pipeline stage memorize may move a contact into (its analyzer), and what the model is told about it. */
export interface StageAnalyzerView {
  stageId: string;
  name: string;
  updateBehavior: FieldAnalyzerView['updateBehavior'];
  analysisGoals: string | null;
}

/** A value the model extracted for a contact field (`email`, `custom_fields.plan`, `pipeline_stage`). */
export interface MemorizedValue {
  field: string;
  value: string;
  confidence: number | null;
  reason: string | null;
}

/** The contacts the runtime reads and, with memorize, updates. */
export abstract class ContactDirectory {
  /** The contact, or null when it is not in this workspace. */
  abstract find(workspaceId: WorkspaceId, contactId: string): Promise<ContactView | null>;
  /** The analyzers of these fields (a field without one gets the defaults). */
  abstract analyzers(workspaceId: WorkspaceId, fields: string[]): Promise<Map<string, FieldAnalyzerView>>;
  /** The workspace's pipeline stages (by order) with their analyzers. */
  abstract stages(workspaceId: WorkspaceId): Promise<StageAnalyzerView[]>;
  /**
   * Applies a session's extracted values through their analyzers: written, proposed for approval or skipped;
   * invalid values are skipped. Answers the values written and the fields proposed.
   */
  abstract memorize(
    workspaceId: WorkspaceId,
    session: { contactId: string; conversationId: string | null; sessionId: string },
    values: MemorizedValue[],
  ): Promise<{ written: Record<string, unknown>; proposed: string[] }>;
}

export interface KnowledgeHit {
  content: string;
  source: string;
}

/** The agent's searchable knowledge as of its last sync. */
export abstract class KnowledgeLookup {
  /** The passages for a reply to the last of the customer's turns (oldest first), within the prompt's budget. */
  abstract forTurns(
    workspaceId: WorkspaceId,
    agentId: string,
    customerTurns: string[],
  ): Promise<KnowledgeHit[]>;
}
