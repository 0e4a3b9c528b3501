/** Which detector answers: the Silero VAD model, or the energy detector (its gate and fallback). */
export type VadEngine = 'silero' | 'energy';

/** Calls are 8 kHz (telephony, µ-law decoded to PCM); browser calls send 16 kHz. */
export type VadSampleRate = 8000 | 16000;

export const VAD_SAMPLE_RATES: readonly VadSampleRate[] = [8000, 16000];

/** A probability from this up reads as speech. */
export const SPEECH_THRESHOLD = 0.5;
/** Once speaking, a probability must fall under this to read as non-speech again (hysteresis). */
export const SILENCE_THRESHOLD = 0.35;

/**
 * Voice activity of one audio stream (one call leg), fed frame by frame on the media path. Synchronous: `push`
 * answers before it returns, with no I/O and no allocation of its own per frame.
 */
export interface VoiceActivity {
  readonly engine: VadEngine;
  readonly sampleRate: VadSampleRate;
  /**
   * At most how much of the audio pushed so far is not yet reflected in the answer, in ms: 0 for the energy
   * detector (every frame is judged as it comes), 28 for Silero (it judges whole 32 ms windows, so after a
   * 20 ms frame up to 28 ms of audio waits for its window to fill).
   */
  readonly maxLagMs: number;
  /**
   * Takes the stream's next 16-bit PCM samples at `sampleRate` (one 20 ms frame: 160 samples at 8 kHz, 320 at
   * 16 kHz; any length works) and answers the speech probability, 0 to 1, of the latest audio judged.
   */
  push(samples: Int16Array): number;
  /** The latest answer of `push` (0 before any audio). */
  readonly probability: number;
  /** The latest probability read as speech or not, with hysteresis (see SPEECH_THRESHOLD, SILENCE_THRESHOLD). */
  readonly speech: boolean;
  /** Forgets the stream's audio (e.g. after the line was on hold), as if it had just started. */
  reset(): void;
}

export function assertSampleRate(sampleRate: number): asserts sampleRate is VadSampleRate {
  if (!VAD_SAMPLE_RATES.includes(sampleRate as VadSampleRate))
    throw new RangeError(`Voice activity takes 8000 or 16000 Hz audio, not ${sampleRate}`);
}
