import { Inject, Injectable } from '@nestjs/common';
import type { AgentResponse } from '@/modules/agents/dto/agent.response';
import type { ToolDryRun, ToolDryRunCall, ToolDryRunner } from '@/modules/agents/rules/tool-dry-run.port';
import { LANGUAGE_MODEL, LanguageModel, LlmError } from '@/providers/llm/language-model.port';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { buildReplyMessages } from '../reply-prompt';
import { builtinTools } from './builtin-tools';
import { INTENT_ACTIONS, IntentActions } from './intent-actions.port';
import {
  argumentsObject,
  buildTools,
  checkArguments,
  classifyIntent,
  defaultsOf,
  IntentTool,
} from './tool-definitions';

/**
 * The functions an agent offers (its intents with their deployed actions, read through the INTENT_ACTIONS port), and
 * which one an utterance calls (the agents module's TOOL_DRY_RUN port).
 */
@Injectable()
export class ToolCatalog implements ToolDryRunner {
  constructor(
    @Inject(INTENT_ACTIONS) private readonly actions: IntentActions,
    @Inject(LANGUAGE_MODEL) private readonly llm: LanguageModel,
  ) {}

  /**
   * The agent's intents as tools, then the built-in tools it opted into that fit the conversation's `channel`
   * (none without one).
   */
  async toolsFor(workspaceId: WorkspaceId, agent: AgentResponse, channel?: string): Promise<IntentTool[]> {
    const builtins = builtinTools(agent, channel);
    if (!agent.intents?.length) return builtins;
    return [...buildTools(agent, await this.actions.deployedOf(workspaceId, agent.agent_uuid)), ...builtins];
  }

  /** Which intents the model (or, without one, the local classifier) would call for `utterance`; runs nothing. */
  async dryRun(
    workspaceId: WorkspaceId,
    agent: AgentResponse,
    utterance: string,
    channel: string,
  ): Promise<ToolDryRun> {
    const tools = await this.toolsFor(workspaceId, agent);
    if (!this.llm.isConfigured(agent.custom_llm_url)) return this.local(agent, tools, utterance, null);
    if (!tools.length) return { method: 'llm', calls: [], note: null };
    try {
      const result = await this.llm.chat(
        buildReplyMessages({ agent, channel, history: [{ sender: 'customer', content: utterance }] }),
        { baseUrl: agent.custom_llm_url, tools: tools.map((t) => t.definition) },
      );
      const calls = (result.toolCalls ?? []).flatMap((c): ToolDryRunCall[] => {
        const tool = tools.find((t) => t.name === c.function.name);
        if (!tool) return [];
        const check = checkArguments(tool, c.function.arguments);
        return [
          describe(
            tool,
            check.ok ? check.parameters : argumentsObject(c.function.arguments),
            check.ok ? [] : check.details,
            null,
          ),
        ];
      });
      return { method: 'llm', calls, note: null };
    } catch (err) {
      if (!(err instanceof LlmError)) throw err;
      return this.local(
        agent,
        tools,
        utterance,
        `The language model failed (${err.message}); the local classifier answered`,
      );
    }
  }

  private local(
    agent: AgentResponse,
    tools: IntentTool[],
    utterance: string,
    note: string | null,
  ): ToolDryRun {
    const hit = classifyIntent(agent, tools, utterance);
    return {
      method: 'local',
      calls: hit ? [describe(hit.tool, defaultsOf(hit.tool.intent), [], hit.score)] : [],
      note,
    };
  }
}

function describe(
  tool: IntentTool,
  parameters: Record<string, unknown>,
  errors: string[],
  score: number | null,
): ToolDryRunCall {
  return {
    intent_uuid: tool.intent.intent_uuid,
    key: tool.intent.key,
    name: tool.intent.name,
    parameters,
    valid: !errors.length,
    errors,
    score,
  };
}
