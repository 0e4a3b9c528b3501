import { AppException } from '@/common/errors/app.exception';
import { ENDPOINTING, checkVoiceSettings } from './voice-settings';

const fieldOf = (voice: Record<string, unknown>): string | undefined => {
  try {
    checkVoiceSettings(voice);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(AppException);
    return (err as Error).message;
  }
};

describe('checkVoiceSettings: the turn-taking keys of settings.voice on save', () => {
  it('takes values in range, nulls and a missing block', () => {
    expect(() => checkVoiceSettings(undefined)).not.toThrow();
    expect(
      fieldOf({
        endpointing: { mode: 'fixed', min_silence_ms: ENDPOINTING.minSilenceMs.min, max_silence_ms: 3000 },
        interruption: { min_speech_ms: 0, ignore_words: ['okay', 'uh huh'] },
        stream_speech: false,
      }),
    ).toBeUndefined();
    expect(fieldOf({ endpointing: null, interruption: null, stream_speech: null })).toBeUndefined();
  });

  it('refuses, naming the field, what is out of range or of the wrong kind', () => {
    expect(fieldOf({ endpointing: { mode: 'slow' } })).toMatch(/^settings\.voice\.endpointing\.mode /);
    expect(fieldOf({ endpointing: { min_silence_ms: 10 } })).toMatch(
      /^settings\.voice\.endpointing\.min_silence_ms must be an integer from 50 to 2000/,
    );
    expect(fieldOf({ endpointing: { min_silence_ms: 900, max_silence_ms: 800 } })).toMatch(
      /^settings\.voice\.endpointing\.max_silence_ms must not be less than/,
    );
    expect(fieldOf({ interruption: { ignore_words: ['ok', ' '] } })).toMatch(
      /^settings\.voice\.interruption\.ignore_words\.1 /,
    );
    expect(fieldOf({ stream_speech: 'yes' })).toMatch(/^settings\.voice\.stream_speech must be a boolean/);
  });
});
