import { AppException } from '@/common/errors/app.exception';

/**
 * `settings.voice` of an agent: the turn-taking keys' defaults and ranges, and their check when the agent is saved.
 * The media session reads the block with these defaults (`voiceSettings` in voice/media/voice-settings.ts).
 */

/**
 * `settings.voice.endpointing` defaults and ranges (docs/api.md, voice settings). `min_silence_ms` is shorter by
 * default on a call whose words come from a speech-to-text stream (`realtime`): a pause there costs no
 * transcription, only a speculative model request aborted if the caller goes on.
 */
export const ENDPOINTING = {
  minSilenceMs: { min: 50, max: 2000, default: 100, realtime: 60 },
  maxSilenceMs: { min: 200, max: 6000, default: 1500 },
} as const;
/** `settings.voice.interruption` defaults and ranges. */
export const INTERRUPTION = {
  minSpeechMs: { min: 0, max: 3000, default: 300 },
  ignoreWords: { maxItems: 200, maxLength: 100 },
} as const;

type Voice = Record<string, unknown>;
/** A block of `settings.voice` (`endpointing`, `interruption`): an object, not an array. */
export const isObject = (v: unknown): v is Voice => typeof v === 'object' && v !== null && !Array.isArray(v);
/** An integer within one of the ranges above. */
export const intIn = (v: unknown, r: { min: number; max: number }): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= r.min && v <= r.max;

const invalid = (
  field: string,
  message: string,
  code: 'INVALID_FORMAT' | 'VALIDATION_ERROR' = 'INVALID_FORMAT',
) => AppException.invalid(`settings.voice.${field}`, `settings.voice.${field} ${message}`, code);

function checkInt(block: Voice, key: string, range: { min: number; max: number }, prefix: string): void {
  const v = block[key];
  if (v === undefined || v === null) return;
  if (!intIn(v, range))
    throw invalid(`${prefix}.${key}`, `must be an integer from ${range.min} to ${range.max}`);
}

/**
 * Checks the turn-taking keys of a `settings.voice` being saved (the merged block: a key sent alone is checked
 * against the others kept): `endpointing {mode, min_silence_ms, max_silence_ms}`, `interruption {min_speech_ms,
 * ignore_words}`, `stream_speech`. `422` naming the field (`settings.voice.endpointing.min_silence_ms`); null
 * removes a block (its defaults apply).
 */
export function checkVoiceSettings(voice: Voice | undefined): void {
  if (!voice) return;
  const { endpointing, interruption } = voice;
  if (endpointing !== undefined && endpointing !== null) {
    if (!isObject(endpointing)) throw invalid('endpointing', 'must be an object');
    const mode = endpointing.mode;
    if (mode !== undefined && mode !== null && mode !== 'smart' && mode !== 'fixed')
      throw invalid('endpointing.mode', 'must be one of smart, fixed');
    checkInt(endpointing, 'min_silence_ms', ENDPOINTING.minSilenceMs, 'endpointing');
    checkInt(endpointing, 'max_silence_ms', ENDPOINTING.maxSilenceMs, 'endpointing');
    const min = (endpointing.min_silence_ms as number | null | undefined) ?? ENDPOINTING.minSilenceMs.default;
    const max = (endpointing.max_silence_ms as number | null | undefined) ?? ENDPOINTING.maxSilenceMs.default;
    if (max < min)
      throw invalid(
        'endpointing.max_silence_ms',
        `must not be less than settings.voice.endpointing.min_silence_ms (${min})`,
        'VALIDATION_ERROR',
      );
  }
  if (interruption !== undefined && interruption !== null) {
    if (!isObject(interruption)) throw invalid('interruption', 'must be an object');
    checkInt(interruption, 'min_speech_ms', INTERRUPTION.minSpeechMs, 'interruption');
    const words = interruption.ignore_words;
    if (words !== undefined && words !== null) {
      const { maxItems, maxLength } = INTERRUPTION.ignoreWords;
      if (!Array.isArray(words) || words.length > maxItems)
        throw invalid(
          'interruption.ignore_words',
          `must be an array of at most ${maxItems} words or phrases`,
        );
      words.forEach((w, i) => {
        if (typeof w !== 'string' || !w.trim() || w.length > maxLength)
          throw invalid(
            `interruption.ignore_words.${i}`,
            `must be a non-blank text of at most ${maxLength} characters`,
          );
      });
    }
  }
  if (
    voice.stream_speech !== undefined &&
    voice.stream_speech !== null &&
    typeof voice.stream_speech !== 'boolean'
  )
    throw invalid('stream_speech', 'must be a boolean');
}
