import { AppException } from '@/common/errors/app.exception';

/*
 * The answering-machine policy: what a call does when a machine answers. Levels give it (the agent's
 * `settings.voice.voicemail`, a campaign's or a task's, a call's `voicemail`); each is checked here, and a call's
 * policy is resolved from them key by key (the calls module fills its message when the call is placed).
 */

/** What the agent does when a machine answers. */
export const VOICEMAIL_ACTIONS = ['hang_up', 'leave_message', 'continue'] as const;
export type VoicemailAction = (typeof VOICEMAIL_ACTIONS)[number];

/** The answering-machine policy of a call, as resolved when it is placed (agent, then campaign, then call). */
export interface VoicemailPolicy {
  detection: boolean;
  action: VoicemailAction;
  /** Said after the beep with `leave_message` (variables filled); null otherwise. */
  message: string | null;
  /** A task whose call reached a machine is tried again under its retry interval and attempts. */
  retry_on_voicemail: boolean;
}

/** One level's keys (`settings.voice.voicemail`, a campaign's or a call's `voicemail`): any may be left out. */
export type VoicemailOverride = Partial<VoicemailPolicy>;

export const DEFAULT_VOICEMAIL: VoicemailPolicy = {
  detection: false,
  action: 'hang_up',
  message: null,
  retry_on_voicemail: false,
};

export const MAX_VOICEMAIL_MESSAGE = 2000;

/**
 * A `voicemail` object as a level gives it: the known keys checked (422 naming `<field>.<key>`), unknown keys
 * ignored; null or absent is no override.
 */
export function checkVoicemail(value: unknown, field: string): VoicemailOverride | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value))
    throw AppException.invalid(field, `${field} must be an object`);
  const v = value as Record<string, unknown>;
  const out: VoicemailOverride = {};
  for (const key of ['detection', 'retry_on_voicemail'] as const) {
    if (v[key] === undefined) continue;
    if (typeof v[key] !== 'boolean')
      throw AppException.invalid(`${field}.${key}`, `${field}.${key} must be a boolean value`);
    out[key] = v[key];
  }
  if (v.action !== undefined) {
    if (!VOICEMAIL_ACTIONS.includes(v.action as VoicemailAction))
      throw AppException.invalid(
        `${field}.action`,
        `${field}.action must be one of ${VOICEMAIL_ACTIONS.join(', ')}`,
      );
    out.action = v.action as VoicemailAction;
  }
  if (v.message !== undefined && v.message !== null) {
    if (typeof v.message !== 'string' || v.message.length > MAX_VOICEMAIL_MESSAGE)
      throw AppException.invalid(
        `${field}.message`,
        `${field}.message must be a string of at most ${MAX_VOICEMAIL_MESSAGE} characters`,
      );
    out.message = v.message.trim() ? v.message : null;
  } else if (v.message === null) out.message = null;
  if (out.action === 'leave_message' && v.message !== undefined && !out.message)
    throw AppException.invalid(
      `${field}.message`,
      `${field}.message is required when ${field}.action is leave_message`,
      'VALIDATION_ERROR',
    );
  return out;
}

/** A level stored earlier and read back (an agent's free-form settings): what does not check is no override. */
export function storedVoicemail(value: unknown): VoicemailOverride | null {
  try {
    return checkVoicemail(value, 'voicemail');
  } catch {
    return null;
  }
}

/**
 * The policy of a call, key by key: the call's keys, then the campaign's, then the agent's, then the defaults.
 * `leave_message` without a message at any level is refused (422 on `<field>.message`); where nobody is there to
 * answer a refusal (`strict` false: a task's call), it hangs up instead.
 */
export function resolveVoicemail(
  levels: (VoicemailOverride | null | undefined)[],
  field = 'voicemail',
  strict = true,
): VoicemailPolicy {
  const pick = <K extends keyof VoicemailPolicy>(key: K): VoicemailPolicy[K] => {
    for (const level of levels)
      if (level && level[key] !== undefined) return level[key] as VoicemailPolicy[K];
    return DEFAULT_VOICEMAIL[key];
  };
  const policy: VoicemailPolicy = {
    detection: pick('detection'),
    action: pick('action'),
    message: pick('message'),
    retry_on_voicemail: pick('retry_on_voicemail'),
  };
  if (policy.detection && policy.action === 'leave_message' && !policy.message) {
    if (!strict) return { ...policy, action: 'hang_up' };
    throw AppException.invalid(
      `${field}.message`,
      `${field}.message is required when the action is leave_message (no level sets one)`,
      'VALIDATION_ERROR',
    );
  }
  return policy;
}

/** An agent's `settings.voice.voicemail` (free-form settings: a value that does not check is no setting). */
export const agentVoicemail = (agent: { settings?: { voice?: Record<string, unknown> } | null }) =>
  storedVoicemail(agent.settings?.voice?.voicemail);
