import { Injectable } from '@nestjs/common';
import type { AgentResponse } from '@/modules/agents/dto/agent.response';
import { AgentsService } from '@/modules/agents/agents.service';
import { EvaluationSettingsService } from '@/modules/evaluation/settings/evaluation-settings.service';
import { MemorizeSettingsService } from '@/modules/agents/settings/memorize-settings.service';
import { AnalyzersService } from '@/modules/contacts/analyzers.service';
import { ApprovalsService } from '@/modules/contacts/approvals.service';
import { ContactsService } from '@/modules/contacts/contacts.service';
import { KnowledgeService } from '@/modules/knowledge/knowledge.service';
import {
  AgentContextReader,
  ContactDirectory,
  ContactView,
  EffectiveEvaluation,
  FieldAnalyzerView,
  KnowledgeHit,
  KnowledgeLookup,
  MemorizedValue,
  MemorizeSettingsShape,
} from './agent-context';

/** The agent, its evaluation and memorize settings, through the agents module's services. */
@Injectable()
export class AgentsContextReader extends AgentContextReader {
  constructor(
    private readonly agents: AgentsService,
    private readonly evaluations: EvaluationSettingsService,
    private readonly memorizeSettings: MemorizeSettingsService,
  ) {
    super();
  }

  agent(workspaceId: string, agentId: string): Promise<AgentResponse> {
    return this.agents.view(workspaceId, agentId);
  }

  async evaluation(workspaceId: string, agentId: string | null): Promise<EffectiveEvaluation> {
    const effective = agentId
      ? await this.evaluations.effectiveFor(workspaceId, agentId)
      : await this.evaluations.getDefault(workspaceId);
    const { version, source: _source, ...settings } = effective;
    return { settings, version };
  }

  async memorize(workspaceId: string, agentId: string): Promise<MemorizeSettingsShape> {
    const {
      source: _source,
      updated_at: _updated,
      ...settings
    } = await this.memorizeSettings.effectiveFor(workspaceId, agentId);
    return settings;
  }
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

  async find(workspaceId: string, contactId: string): Promise<ContactView | null> {
    const contact = await this.contacts.find(workspaceId, contactId);
    if (!contact) return null;
    return {
      uuid: contact.id,
      fields: this.contacts.toResponse(contact) as unknown as Record<string, unknown>,
    };
  }

  analyzers(workspaceId: string, fields: string[]): Promise<Map<string, FieldAnalyzerView>> {
    return this.analyzerSettings.forFields(workspaceId, fields);
  }

  memorize(
    workspaceId: string,
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

  async forTurns(workspaceId: string, agentId: string, customerTurns: string[]): Promise<KnowledgeHit[]> {
    const passages = await this.knowledge.passagesFor(workspaceId, agentId, customerTurns);
    return passages.map((p) => ({ content: p.content, source: p.source }));
  }
}
