import { Injectable } from '@nestjs/common';
import type { AgentResponse } from '@/modules/agents/dto/agent.response';
import { AgentsService } from '@/modules/agents/agents.service';
import { AnalyzersService } from '@/modules/contacts/analyzers.service';
import { ApprovalsService } from '@/modules/contacts/approvals.service';
import {
  EffectiveEvaluationSettings,
  EvaluationSettingsService,
} from '@/modules/agents/settings/evaluation-settings.service';
import {
  EffectiveMemorizeSettings,
  MemorizeSettingsService,
} from '@/modules/agents/settings/memorize-settings.service';
import { ContactsService } from '@/modules/contacts/contacts.service';
import { KnowledgeService } from '@/modules/knowledge/knowledge.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import {
  AgentContextReader,
  ContactDirectory,
  StageAnalyzerView,
  ContactView,
  EffectiveEvaluation,
  FieldAnalyzerView,
  KnowledgeHit,
  KnowledgeLookup,
  MemorizedValue,
  MemorizeSettingsShape,
  TurnContext,
} from './agent-context';

/** How many agents' turn contexts a process keeps (the oldest read goes first). */
const KEPT_CONTEXTS = 500;

/** The other modules' rows a turn reads, placed in the agent view's statement. */
const TURN_EXTRAS = {
  evaluation_rows: EvaluationSettingsService.AGENT_VIEW_SUB_SELECT,
  memorize_rows: MemorizeSettingsService.AGENT_VIEW_SUB_SELECT,
  knowledge_passages: `(SELECT coalesce(sum(s.passages), 0)::int FROM knowledge_index_stats s
                         WHERE s.workspace_id = a.workspace_id AND s.agent_id = a.id)`,
};

/** The agent, its evaluation and memorize settings, through the agents module's services. */
@Injectable()
export class AgentsContextReader extends AgentContextReader {
  /** Turn contexts by `workspace:agent`, each with the configuration version it was read at. */
  private readonly kept = new Map<string, TurnContext>();

  constructor(
    private readonly agents: AgentsService,
    private readonly evaluations: EvaluationSettingsService,
    private readonly memorizeSettings: MemorizeSettingsService,
  ) {
    super();
  }

  agent(workspaceId: WorkspaceId, agentId: string): Promise<AgentResponse> {
    return this.agents.view(workspaceId, agentId);
  }

  async forTurn(workspaceId: WorkspaceId, agentId: string, version?: string | null): Promise<TurnContext> {
    const key = `${workspaceId}:${agentId}`;
    const kept = this.kept.get(key);
    if (version && kept?.version === version) return kept;
    const read = await this.agents.viewWith(workspaceId, agentId, 'turn_v1', TURN_EXTRAS);
    const context: TurnContext = {
      agent: read.view,
      evaluation: evaluationShape(
        EvaluationSettingsService.effectiveFromView(read.extras.evaluation_rows, agentId),
      ),
      memorize: memorizeShape(MemorizeSettingsService.effectiveFromView(read.extras.memorize_rows, agentId)),
      version: read.configVersion,
      hasKnowledge: Number(read.extras.knowledge_passages) > 0,
    };
    // What was read is at least as new as its version (one statement), so keeping it under that version is safe.
    this.kept.delete(key);
    if (context.version) {
      this.kept.set(key, context);
      if (this.kept.size > KEPT_CONTEXTS) this.kept.delete(this.kept.keys().next().value!);
    }
    return context;
  }

  async evaluation(workspaceId: WorkspaceId, agentId: string | null): Promise<EffectiveEvaluation> {
    return evaluationShape(
      agentId
        ? await this.evaluations.effectiveFor(workspaceId, agentId)
        : await this.evaluations.getDefault(workspaceId),
    );
  }

  async memorize(workspaceId: WorkspaceId, agentId: string): Promise<MemorizeSettingsShape> {
    return memorizeShape(await this.memorizeSettings.effectiveFor(workspaceId, agentId));
  }
}

function evaluationShape(effective: EffectiveEvaluationSettings): EffectiveEvaluation {
  const { version, source: _source, ...settings } = effective;
  return { settings, version };
}

function memorizeShape(effective: EffectiveMemorizeSettings): MemorizeSettingsShape {
  const { source: _source, updated_at: _updated, ...settings } = effective;
  return settings;
}

/** Contacts through the contacts module, with the same validation as the API. */
@Injectable()
export class ContactsDirectory extends ContactDirectory {
  constructor(
    private readonly contacts: ContactsService,
    private readonly analyzerSettings: AnalyzersService,
    private readonly approvals: ApprovalsService,
  ) {
    super();
  }

  async find(workspaceId: WorkspaceId, contactId: string): Promise<ContactView | null> {
    const contact = await this.contacts.find(workspaceId, contactId);
    if (!contact) return null;
    return {
      uuid: contact.id,
      fields: this.contacts.toResponse(contact) as unknown as Record<string, unknown>,
    };
  }

  analyzers(workspaceId: WorkspaceId, fields: string[]): Promise<Map<string, FieldAnalyzerView>> {
    return this.analyzerSettings.forFields(workspaceId, fields);
  }

  stages(workspaceId: WorkspaceId): Promise<StageAnalyzerView[]> {
    return this.analyzerSettings.forStages(workspaceId);
  }

  memorize(
    workspaceId: WorkspaceId,
    session: { contactId: string; conversationId: string | null; sessionId: string },
    values: MemorizedValue[],
  ): Promise<{ written: Record<string, unknown>; proposed: string[] }> {
    return this.approvals.fromMemorize(workspaceId, session, values);
  }
}

/** The agent's synced knowledge through the knowledge module's retrieval. */
@Injectable()
export class KnowledgeSearchLookup extends KnowledgeLookup {
  constructor(private readonly knowledge: KnowledgeService) {
    super();
  }

  async forTurns(
    workspaceId: WorkspaceId,
    agentId: string,
    customerTurns: string[],
  ): Promise<KnowledgeHit[]> {
    const passages = await this.knowledge.passagesFor(workspaceId, agentId, customerTurns);
    return passages.map((p) => ({ content: p.content, source: p.source }));
  }
}
