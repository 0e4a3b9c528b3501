import { Inject, Injectable } from '@nestjs/common';
import { AgentsService } from '@/modules/agents/agents.service';
import type { AgentResponse } from '@/modules/agents/dto/agent.response';
import type { TurnAction } from '@/modules/conversations/dto/responses';
import { LANGUAGE_MODEL, LanguageModel, ChatMessage, ToolCall } from '@/providers/llm/language-model.port';
import { Traced } from '@/common/telemetry/traced';
import { buildSystemPrompt } from '../reply-prompt';
import { ActionOutcome, INTENT_ACTIONS, IntentActions } from './intent-actions.port';
import { IntentCallRecorder } from './intent-call-recorder';
import { ToolCatalog } from './tool-catalog.service';
import {
  argumentsObject,
  checkArguments,
  classifyIntent,
  defaultsOf,
  IntentTool,
  isQueryTool,
} from './tool-definitions';
import { TOOL_SPAN } from './tool-span';
import type { ToolTurnResult, TurnToolsContext } from './turn-tools';

/** Tool calls run per customer turn; later ones are recorded as `skipped_limit` and not run. */
export const MAX_TOOL_CALLS = 3;

/** What one turn has done with its tools so far. */
class TurnBudget {
  calls = 0;
  readonly invalid = new Set<string>();
  readonly withdrawn = new Set<string>();
}

/**
 * The reply's model call with the agent's intents offered as functions: each call is checked, run (the intent's
 * action, through the INTENT_ACTIONS port), recorded and answered to the model, which then answers the customer. A
 * failing action never fails the turn. Without a model, the intent the local classifier fires.
 */
@Injectable()
export class ToolLoop {
  constructor(
    @Inject(LANGUAGE_MODEL) private readonly llm: LanguageModel,
    private readonly catalog: ToolCatalog,
    @Inject(INTENT_ACTIONS) private readonly actions: IntentActions,
    private readonly recorder: IntentCallRecorder,
    private readonly agents: AgentsService,
  ) {}

  /**
   * The model's reply with tools offered and run (at most 3 calls); throws LlmError when the model fails. With
   * `onDelta`, a round that offers no tool streams its text as it is written.
   */
  async chat(
    messages: ChatMessage[],
    ctx: TurnToolsContext,
    onDelta?: (text: string) => void,
  ): Promise<ToolTurnResult> {
    let tools = await this.catalog.toolsFor(ctx.workspaceId, ctx.agent, ctx.conversation.channel);
    const history = messages.slice(1);
    let transcript = [...messages];
    let action: TurnAction | null = null;
    const budget = new TurnBudget();
    // Each round either answers or runs at least one call; the budget bounds the rounds.
    for (let round = 0; round <= MAX_TOOL_CALLS + 1; round++) {
      const offered = budget.calls < MAX_TOOL_CALLS ? tools.filter((t) => !budget.withdrawn.has(t.name)) : [];
      const options = { baseUrl: ctx.agent.custom_llm_url, signal: ctx.signal };
      const result =
        !offered.length && onDelta && this.llm.chatStream
          ? await this.llm.chatStream(transcript, options, onDelta)
          : await this.llm.chat(transcript, {
              ...options,
              tools: offered.length ? offered.map((t) => t.definition) : undefined,
            });
      if (!result.toolCalls?.length) return { content: result.content.trim() || null, action };
      transcript.push({ role: 'assistant', content: result.content || null, tool_calls: result.toolCalls });
      // The model may answer before the customer's message is stored (a speculative turn before its commit): the
      // calls run once it is, and not at all when it never is (the turn cancelled).
      await ctx.ready;
      for (const call of result.toolCalls) {
        const tool = tools.find((t) => t.name === call.function.name);
        const answer = tool
          ? await this.handle(tool, call, budget, ctx)
          : { result: { error: 'unknown_tool' }, outcome: null };
        transcript.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(answer.result) });
        const outcome = answer.outcome;
        if (!outcome) continue;
        if (
          outcome.status === 'succeeded' &&
          outcome.response &&
          tool &&
          !tool.intent.intent_llm_handle_by_response
        )
          return { content: outcome.response, action };
        if (outcome.handedTo) {
          // The receiving agent answers this same turn, with its own prompt and tools.
          action = handOverAction(tool!, outcome.handedTo.uuid);
          ctx = { ...ctx, agent: await this.agents.view(ctx.workspaceId, outcome.handedTo.uuid) };
          tools = await this.catalog.toolsFor(ctx.workspaceId, ctx.agent, ctx.conversation.channel);
          transcript = [systemFor(ctx.agent, ctx.conversation.channel), ...history];
          break;
        }
      }
    }
    return { content: null, action };
  }

  /** Without a model: the intent whose phrases match above its threshold runs; null when none does. */
  async withoutModel(utterance: string, ctx: TurnToolsContext): Promise<ToolTurnResult | null> {
    const tools = await this.catalog.toolsFor(ctx.workspaceId, ctx.agent);
    const hit = classifyIntent(ctx.agent, tools, utterance);
    if (!hit) return null;
    // The classifier gives no values: defaults only (an ai_query searches the customer's words).
    const args = isQueryTool(hit.tool.action) ? { query: utterance } : defaultsOf(hit.tool.intent);
    const call: ToolCall = {
      id: 'local',
      type: 'function',
      function: { name: hit.tool.name, arguments: JSON.stringify(args) },
    };
    const { outcome } = await this.handle(hit.tool, call, new TurnBudget(), ctx);
    if (!outcome) return { content: null, action: null };
    return {
      content: outcome.status === 'succeeded' ? outcome.response : null,
      action: outcome.handedTo ? handOverAction(hit.tool, outcome.handedTo.uuid) : null,
    };
  }

  /** One call: limit, parameters, the action, the records. Answers the tool result for the model. */
  @Traced('tool', TOOL_SPAN)
  private async handle(
    tool: IntentTool,
    call: ToolCall,
    budget: TurnBudget,
    ctx: TurnToolsContext,
  ): Promise<{ result: unknown; outcome: ActionOutcome | null }> {
    if (budget.calls >= MAX_TOOL_CALLS || budget.withdrawn.has(tool.name)) {
      const result = { error: 'skipped_limit', message: 'no more tool calls in this turn' };
      await this.recorder.record(ctx, tool, {}, 'skipped_limit', result, 0, null);
      return { result, outcome: null };
    }
    budget.calls += 1;
    const check = checkArguments(tool, call.function.arguments);
    if (!check.ok) {
      const again = budget.invalid.has(tool.name);
      budget.invalid.add(tool.name);
      if (again) budget.withdrawn.add(tool.name);
      const result = {
        error: 'invalid_parameters',
        details: check.details,
        ...(again ? { withdrawn: true } : {}),
      };
      await this.recorder.record(
        ctx,
        tool,
        argumentsObject(call.function.arguments),
        'invalid_parameters',
        result,
        0,
        check.details.join('; '),
      );
      return { result, outcome: null };
    }
    const started = performance.now();
    const outcome = await this.actions.run(tool, check.parameters, ctx);
    const durationMs = Math.round(performance.now() - started);
    const result = await this.recorder.record(
      ctx,
      tool,
      check.parameters,
      outcome.status,
      outcome.result,
      durationMs,
      outcome.error,
      outcome.request,
    );
    return { result, outcome };
  }
}

function handOverAction(tool: IntentTool, agentId: string): TurnAction {
  return {
    kind: 'intent',
    type: 'forward',
    rule_uuid: tool.intent.intent_uuid,
    say: null,
    destination: { type: 'agent', value: null, agent_uuid: agentId },
  };
}

function systemFor(agent: AgentResponse, channel: string): ChatMessage {
  return { role: 'system', content: buildSystemPrompt({ agent, channel, history: [] }) };
}
