import { Inject, Injectable } from '@nestjs/common';
import { LANGUAGE_MODEL, LanguageModel } from '@/providers/llm/language-model.port';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { AgentsService } from '../agents.service';
import type { RuleChannel } from '../collections/agent-rules.entity';
import { evaluateRules, RuleDecision, RuleSet } from './rule-engine';

/**
 * The live rule engine: conversations call it with an agent's rules, the customer's utterance and the channel.
 * Classification goes through the language-model port (the agent's custom_llm_url when set).
 */
@Injectable()
export class RuleEngineService {
  constructor(
    @Inject(LANGUAGE_MODEL) private readonly llm: LanguageModel,
    private readonly agents: AgentsService,
  ) {}

  /** Loads the agent's current rules (404 when it is not in the workspace) and evaluates them. */
  async evaluateForAgent(
    workspaceId: WorkspaceId,
    agentId: string,
    utterance: string,
    channel: RuleChannel,
  ): Promise<RuleDecision> {
    const agent = await this.agents.view(workspaceId, agentId);
    return this.evaluate(agent, utterance, channel, { customLlmUrl: agent.custom_llm_url });
  }

  evaluate(
    rules: RuleSet,
    utterance: string,
    channel: RuleChannel,
    options: { customLlmUrl?: string | null } = {},
  ): Promise<RuleDecision> {
    return evaluateRules(rules, utterance, channel, (u, candidates) =>
      this.llm.classify(u, candidates, { baseUrl: options.customLlmUrl }),
    );
  }
}
