import type { TracedSpec } from '@/common/telemetry/traced';
import type { ToolCall } from '@/providers/llm/language-model.port';
import type { ActionOutcome } from './intent-actions.port';
import type { IntentTool } from './tool-definitions';
import type { TurnToolsContext } from './turn-tools';

type HandleArgs = [tool: IntentTool, call: ToolCall, budget: unknown, ctx: TurnToolsContext];
type Handled = Promise<{ result: unknown; outcome: ActionOutcome | null }>;

/**
 * The `tool` span of one tool call of a turn: the tool, its kind of action and how it ended (`succeeded`, `failed`,
 * or why it did not run: `skipped_limit`, `invalid_parameters`). The model's arguments only with
 * OTEL_CAPTURE_CONTENT=true.
 */
export const TOOL_SPAN: TracedSpec<HandleArgs, Handled> = {
  attributes: (tool, _call, _budget, ctx) => ({
    'workspace.id': ctx.workspaceId,
    'conversation.id': ctx.conversation.id,
    'agent.id': ctx.agent.uuid,
    'tool.name': tool.name,
    'tool.action': tool.builtin ? `builtin:${tool.builtin}` : (tool.action?.type ?? 'none'),
  }),
  around: (span, _started, args) => {
    span.setContent('tool.arguments', args[1].function.arguments);
    return args;
  },
  result: (span, { result, outcome }) => {
    const refused = (result as { error?: unknown } | null)?.error;
    span.setAttribute('tool.outcome', outcome?.status ?? (typeof refused === 'string' ? refused : 'none'));
  },
};
