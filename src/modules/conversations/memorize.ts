import type { Channel } from './channels';
import type { MemorizeSettingsShape } from './agent-context';

export type FieldAccess = 'read' | 'read_write';

/** What memorize allows for one conversation, read from the settings keys documented in docs/api.md. */
export interface MemorizePlan {
  active: boolean;
  /** Contact fields (`name`, `email`, `custom_fields.company`, ...) the reply prompt may include. */
  readable: string[];
  /** Contact fields one model call may update after a session. */
  writable: string[];
  summaries: number;
}

const MAX_SUMMARIES = 10;

export function memorizePlan(settings: MemorizeSettingsShape, channel: Channel): MemorizePlan {
  const channelOn = settings.channel_settings?.[channel] !== false;
  const active = settings.is_active && channelOn;
  const fields = Object.entries(settings.contact_field_settings ?? {}).filter(
    (e): e is [string, FieldAccess] => e[1] === 'read' || e[1] === 'read_write',
  );
  const conv = settings.conversation_settings ?? {};
  const remember = conv.remember_summaries !== false;
  const max =
    typeof conv.max_summaries === 'number' && Number.isInteger(conv.max_summaries) ? conv.max_summaries : 3;
  return {
    active,
    readable: active ? fields.map(([k]) => k) : [],
    writable: active ? fields.filter(([, v]) => v === 'read_write').map(([k]) => k) : [],
    summaries: active && remember ? Math.max(0, Math.min(MAX_SUMMARIES, max)) : 0,
  };
}

/** Picks `name` or `custom_fields.x` out of a contact's fields. */
export function pickFields(contact: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const [head, sub] = key.split('.', 2);
    const value = sub ? (contact[head] as Record<string, unknown> | undefined)?.[sub] : contact[head];
    if (value !== undefined && value !== null && value !== '') out[key] = value;
  }
  return out;
}
