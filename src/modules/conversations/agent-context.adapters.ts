import { Injectable, Logger } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import type { AgentResponse } from '@/modules/agents/dto/agent.response';
import { AgentsService } from '@/modules/agents/agents.service';
import { EvaluationSettingsService } from '@/modules/evaluation/settings/evaluation-settings.service';
import { MemorizeSettingsService } from '@/modules/agents/settings/memorize-settings.service';
import { ContactsService } from '@/modules/contacts/contacts.service';
import { KnowledgeService } from '@/modules/knowledge/knowledge.service';
import {
  AgentContextReader,
  ContactDirectory,
  ContactView,
  EffectiveEvaluation,
  KnowledgeHit,
  KnowledgeLookup,
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
  private readonly logger = new Logger(ContactsDirectory.name);

  constructor(private readonly contacts: ContactsService) {
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

  /** `custom_fields.x` keys become a custom_fields patch; a value the contact rules refuse is skipped, not fatal. */
  async update(workspaceId: string, contactId: string, fields: Record<string, unknown>): Promise<void> {
    const patches = Object.entries(fields).map(([key, value]) => {
      const [head, sub] = key.split('.', 2);
      return sub ? { custom_fields: { [sub]: value } } : { [head]: value };
    });
    for (const patch of patches) {
      try {
        await this.contacts.update(workspaceId, contactId, patch);
      } catch (err) {
        if (!(err instanceof AppException)) throw err;
        this.logger.warn(
          { workspaceId, contactId, field: err.options.field, code: err.code },
          'memorized value refused',
        );
      }
    }
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
