import type {
  AgentResponse,
  IntentParameterResponse,
  IntentResponse,
} from '@/modules/agents/dto/agent.response';
import type { ToolDefinition } from '@/providers/llm/language-model.port';
import { classifyBySimilarity } from '@/providers/llm/similarity-classifier';
import { fieldMessage, phoneNumberProblem } from '@/common/validation/validators';
import { BuiltinToolName, checkBuiltinArguments } from './builtin-tools';
import type { DeployedAction } from './intent-actions.port';

/** One intent as the model sees it: a function, its deployed action (if any) and where procedures use it. */
export interface IntentTool {
  name: string;
  intent: IntentResponse;
  action: DeployedAction | null;
  definition: ToolDefinition;
  /** A tool the service runs itself (builtin-tools.ts); its `intent` only names it in the records. */
  builtin?: BuiltinToolName;
}

export type ArgumentCheck =
  { ok: true; parameters: Record<string, unknown> } | { ok: false; details: string[] };

const NAME_MAX = 64;
const DESCRIPTION_MAX = 1024;

/** `ai_query` tools take one string, whatever the intent's own parameters. */
export function isQueryTool(action: DeployedAction | null): boolean {
  return action?.type === 'app' && action.config.action === 'ai_query';
}

function schemaOf(type: string): Record<string, unknown> {
  switch (type) {
    case 'number':
      return { type: 'number' };
    case 'integer':
      return { type: 'integer' };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', format: 'date', description: 'YYYY-MM-DD' };
    case 'email':
      return { type: 'string', format: 'email' };
    case 'phone':
      return { type: 'string', description: 'E.164, e.g. +14155552671' };
    default:
      return { type: 'string' };
  }
}

/** Where procedures call this intent, for the model to know when. */
function procedureUses(agent: AgentResponse, intentUuid: string): string[] {
  return (agent.procedures ?? []).flatMap((p) =>
    (p.steps ?? [])
      .filter((s) => s.intent_uuid === intentUuid)
      .map(
        (s) => `Step ${s.order} of the procedure "${p.name}"${s.description ? `: ${s.description}` : ''}.`,
      ),
  );
}

function parametersSchema(intent: IntentResponse, action: DeployedAction | null): Record<string, unknown> {
  if (isQueryTool(action)) {
    const about = action!.config.query_description;
    return {
      type: 'object',
      properties: { query: { type: 'string', description: about || 'what to look up' } },
      required: ['query'],
    };
  }
  const properties: Record<string, unknown> = {};
  for (const p of intent.parameters) properties[p.key] = schemaOf(p.type);
  const required = intent.parameters.filter((p) => p.required && defaultOf(p) === null).map((p) => p.key);
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

/** Every intent of the agent as a function; the name is the intent key (cut to the 64 characters models allow). */
export function buildTools(agent: AgentResponse, deployed: Map<string, DeployedAction>): IntentTool[] {
  return (agent.intents ?? []).map((intent) => {
    const action = deployed.get(intent.intent_uuid) ?? null;
    const description = [
      intent.description,
      intent.recommendation_actions,
      ...procedureUses(agent, intent.intent_uuid),
    ]
      .filter((s): s is string => !!s && !!s.trim())
      .join(' ')
      .slice(0, DESCRIPTION_MAX);
    const name = intent.key.slice(0, NAME_MAX);
    return {
      name,
      intent,
      action,
      definition: {
        type: 'function',
        function: {
          name,
          description: description || intent.name,
          parameters: parametersSchema(intent, action),
        },
      },
    };
  });
}

/** The parameter's default as stored, or null when it has none: an empty or blank default is no default. */
function defaultOf(p: IntentParameterResponse): string | null {
  return p.default != null && p.default.trim() ? p.default : null;
}

/** A default (stored as text) in its parameter's type. */
function typedDefault(type: string, value: string): unknown {
  if (type === 'number' || type === 'integer') {
    const n = Number(value);
    return value.trim() && Number.isFinite(n) ? n : value;
  }
  if (type === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
  return value;
}

/** The intent's defaults, for a call made by the local classifier. */
export function defaultsOf(intent: IntentResponse): Record<string, unknown> {
  const defaults: Record<string, unknown> = {};
  for (const p of intent.parameters) {
    const value = defaultOf(p);
    if (value !== null) defaults[p.key] = typedDefault(p.type, value);
  }
  return defaults;
}

function problem(type: string, value: unknown): string | null {
  switch (type) {
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'integer':
      return Number.isInteger(value) ? null : 'must be an integer';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be a boolean';
    case 'date':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) && !isNaN(Date.parse(value))
        ? null
        : 'must be a date (YYYY-MM-DD)';
    case 'email':
      return typeof value === 'string' && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)
        ? null
        : 'must be an email';
    case 'phone':
      return phoneNumberProblem(value);
    default:
      return typeof value === 'string' ? null : 'must be a string';
  }
}

/** The model's arguments checked against the intent's parameters, defaults filled for keys left out. */
export function checkArguments(tool: IntentTool, argumentsText: string): ArgumentCheck {
  let args: unknown;
  try {
    args = argumentsText.trim() ? JSON.parse(argumentsText) : {};
  } catch {
    return { ok: false, details: ['arguments are not a JSON object'] };
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    return { ok: false, details: ['arguments are not a JSON object'] };
  const given = args as Record<string, unknown>;
  if (tool.builtin) return checkBuiltinArguments(tool.builtin, given);
  if (isQueryTool(tool.action)) {
    const q = given.query;
    return typeof q === 'string' && q.trim()
      ? { ok: true, parameters: { query: q } }
      : { ok: false, details: ['query is required and must be a string'] };
  }
  const parameters: Record<string, unknown> = {};
  const details: string[] = [];
  for (const p of tool.intent.parameters) {
    const value = given[p.key];
    if (value === undefined || value === null) {
      const fallback = defaultOf(p);
      if (fallback !== null) parameters[p.key] = typedDefault(p.type, fallback);
      else if (p.required) details.push(`${p.key} is required`);
      continue;
    }
    const bad = problem(p.type, value);
    if (bad) details.push(fieldMessage(p.key, bad));
    else parameters[p.key] = value;
  }
  return details.length ? { ok: false, details } : { ok: true, parameters };
}

/**
 * Without a model: the intent whose name, description or training examples (items whose `intent` is its key) are
 * most like the customer's words, at or above its `confidence_threshold`.
 */
export function classifyIntent(
  agent: AgentResponse,
  tools: IntentTool[],
  utterance: string,
): { tool: IntentTool; score: number } | null {
  const candidates = tools.map((t) => ({
    id: t.intent.intent_uuid,
    description: t.intent.description ?? t.intent.name,
    examples: [
      t.intent.name,
      ...(t.intent.description ? [t.intent.description] : []),
      ...(agent.training ?? []).filter((x) => x.intent === t.intent.key).map((x) => x.content),
    ],
  }));
  if (!candidates.length) return null;
  const scores = classifyBySimilarity(utterance, candidates);
  let best: { tool: IntentTool; score: number } | null = null;
  scores.forEach((s, i) => {
    const tool = tools[i];
    if (s.score >= tool.intent.confidence_threshold && (!best || s.score > best.score))
      best = { tool, score: s.score };
  });
  return best;
}

/** The model's arguments as an object, or `{}` when they are not one (for the records of an invalid call). */
export function argumentsObject(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
