import type { ToolCall } from './language-model.port';

/** The well-formed function calls of an answer's `tool_calls` (others are dropped). */
export function readToolCalls(raw: unknown): ToolCall[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((c: unknown, i): ToolCall[] => {
    const call = c as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
    const name = call?.function?.name;
    if (typeof name !== 'string' || !name) return [];
    const args = call.function?.arguments;
    return [
      {
        id: typeof call.id === 'string' && call.id ? call.id : `call_${i}`,
        type: 'function',
        function: {
          name,
          arguments: typeof args === 'string' ? args : args === undefined ? '{}' : JSON.stringify(args),
        },
      },
    ];
  });
}
