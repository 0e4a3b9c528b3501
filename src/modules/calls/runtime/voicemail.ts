import { resolveVoicemail, VoicemailOverride, VoicemailPolicy } from '@/modules/agents/voicemail-policy';
import { fill } from './call-context';

/** Who answered an outbound call, once detected. */
export const ANSWERED_BY = ['human', 'machine', 'fax', 'unknown'] as const;
export type AnsweredBy = (typeof ANSWERED_BY)[number];

/** How a detection came: the provider's answering-machine detection, or the first words heard. */
export type DetectionSource = 'twilio' | 'sandbox' | 'transcript';

/** What a call keeps of its detection (`machine_detection` in its answer). */
export interface MachineDetection {
  source: DetectionSource;
  /** The provider's own value (`machine_end_beep`), or the phrase heard (`leave a message after the tone`). */
  result: string;
  /** The transcript's language, when the words decided. */
  language: string | null;
  duration_ms: number | null;
  detected_at: string;
}

/** A call's policy from its levels (see `resolveVoicemail`), its message filled with the call's variables. */
export function callVoicemail(
  levels: (VoicemailOverride | null | undefined)[],
  variables: Record<string, string>,
  options: { field?: string; strict?: boolean } = {},
): VoicemailPolicy {
  const policy = resolveVoicemail(levels, options.field, options.strict);
  return { ...policy, message: policy.message ? fill(policy.message, variables) : null };
}

/** Twilio's `AnsweredBy` (the sandbox speaks the same) as the call keeps it. */
export function answeredByOf(value: string | undefined): AnsweredBy | null {
  switch (value) {
    case 'human':
      return 'human';
    case 'machine_start':
    case 'machine_end_beep':
    case 'machine_end_silence':
    case 'machine_end_other':
      return 'machine';
    case 'fax':
      return 'fax';
    case 'unknown':
      return 'unknown';
    default:
      return null;
  }
}

/** Whether an answer decides that nobody is there to talk to (the call then ends, or goes on with `continue`). */
export const isMachine = (a: AnsweredBy | null | undefined): boolean => a === 'machine' || a === 'fax';
