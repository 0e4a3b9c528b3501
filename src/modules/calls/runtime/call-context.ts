import { AppException } from '@/common/errors/app.exception';
import type { AgentResponse } from '@/modules/agents/dto/agent.response';
import type { ConversationRef } from '@/modules/conversations/conversation.entity';
import type { Call } from '../call.entity';
import type { CreateCallDto } from '../dto/requests';

/** The call's conversation (the same id), as a turn knows it from the call row. */
export const conversationOf = (
  call: Pick<Call, 'id' | 'workspaceId' | 'channel' | 'contactId'>,
): ConversationRef => ({
  id: call.id,
  workspaceId: call.workspaceId,
  channel: call.channel,
  contactId: call.contactId,
});

const KEY_RE = /^[A-Za-z0-9_]{1,40}$/;
const MAX_KEYS = 50;
const MAX_VARIABLE = 500;
const MAX_METADATA_BYTES = 8 * 1024;

function checkKeys(field: string, value: Record<string, unknown>): void {
  const keys = Object.keys(value);
  if (keys.length > MAX_KEYS)
    throw AppException.invalid(field, `${field} must have at most ${MAX_KEYS} keys`);
  const bad = keys.find((k) => !KEY_RE.test(k));
  if (bad !== undefined)
    throw AppException.invalid(`${field}.${bad}`, `${field} keys must match ^[A-Za-z0-9_]{1,40}$`);
}

/** `variables`: at most 50 keys, string values of at most 500 characters. */
export function checkVariables(value: Record<string, unknown> | undefined): Record<string, string> {
  if (value === undefined) return {};
  checkKeys('variables', value);
  for (const [k, v] of Object.entries(value))
    if (typeof v !== 'string' || v.length > MAX_VARIABLE)
      throw AppException.invalid(
        `variables.${k}`,
        `variables.${k} must be a string of at most ${MAX_VARIABLE} characters`,
      );
  return value as Record<string, string>;
}

/** `metadata`: at most 50 keys and 8 KB of JSON; stored and echoed, never shown to the model. */
export function checkMetadata(value: Record<string, unknown> | undefined): Record<string, unknown> {
  if (value === undefined) return {};
  checkKeys('metadata', value);
  if (Buffer.byteLength(JSON.stringify(value)) > MAX_METADATA_BYTES)
    throw AppException.invalid('metadata', 'metadata must be at most 8 KB of JSON');
  return value;
}

/** Fills `{{name}}` with the call's variables; unknown names stay as written. */
export function fill(text: string, variables: Record<string, string>): string {
  return text.replace(
    /\{\{\s*([A-Za-z0-9_]{1,40})\s*\}\}/g,
    (whole, name: string) => variables[name] ?? whole,
  );
}

/** The instructions of a call: the agent's custom prompt with the call's prompt, callee context and variables. */
export function callInstructions(
  agentPrompt: string | null,
  call: {
    prompt: { content: string; overwrite: boolean } | null;
    about: string | null;
    variables: Record<string, string>;
  },
): string | null {
  const base = call.prompt?.overwrite
    ? call.prompt.content
    : [agentPrompt, call.prompt?.content].filter(Boolean).join('\n\n');
  const vars = Object.entries(call.variables);
  const parts = [
    base,
    call.about ? `About the person on the call: ${call.about}` : '',
    vars.length ? `Call details:\n${vars.map(([k, v]) => `- ${k}: ${v}`).join('\n')}` : '',
  ].filter(Boolean);
  return parts.length ? fill(parts.join('\n\n'), call.variables) : null;
}

/** A `settings.voice` integer in range, else the default (settings are free-form: out of range is ignored). */
export function voiceSetting(
  agent: AgentResponse,
  key: string,
  min: number,
  max: number,
  fallback: number,
): number {
  const v = (agent.settings?.voice ?? {})[key];
  return typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : fallback;
}

/** A `settings.voice` text that is set and not blank, else null. */
export const voiceText = (agent: AgentResponse, key: string): string | null => {
  const v = (agent.settings?.voice ?? {})[key];
  return typeof v === 'string' && v.trim() ? v : null;
};

/** A `settings.voice` boolean when set, else the default. */
export const voiceFlag = (agent: AgentResponse, key: string, fallback: boolean): boolean => {
  const v = (agent.settings?.voice ?? {})[key];
  return typeof v === 'boolean' ? v : fallback;
};

/**
 * Whether a call keeps a recording: the call's own `record` when given, else the agent's `settings.voice.record`
 * (default true), for every way a call starts. Sandbox calls have no audio and never record.
 */
export const recordsCall = (agent: AgentResponse, provider: string, asked?: boolean): boolean =>
  provider !== 'sandbox' && (asked ?? voiceFlag(agent, 'record', true));

/** `prompt` of `POST /call`: a string (appended) or `{content, overwrite}`; 422 naming the field otherwise. */
export function checkPrompt(value: CreateCallDto['prompt']): Call['prompt'] {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') {
    if (value.length > 20000) throw AppException.invalid('prompt', 'prompt must be at most 20000 characters');
    return { content: value, overwrite: false };
  }
  if (typeof value !== 'object' || Array.isArray(value))
    throw AppException.invalid('prompt', 'prompt must be an object {content, overwrite}');
  if (typeof value.content !== 'string' || !value.content)
    throw AppException.invalid('prompt.content', 'prompt.content should not be empty', 'VALIDATION_ERROR');
  if (value.content.length > 20000)
    throw AppException.invalid('prompt.content', 'prompt.content must be at most 20000 characters');
  if (value.overwrite !== undefined && typeof value.overwrite !== 'boolean')
    throw AppException.invalid('prompt.overwrite', 'prompt.overwrite must be a boolean value');
  return { content: value.content, overwrite: value.overwrite ?? false };
}
