/** One timed stretch of speech, in seconds from the start of the audio. */
export interface SpeechSegment {
  start: number;
  end: number;
  text: string;
}

/** A transcript with its timing (`response_format=verbose_json`, segment granularity). */
export interface TimedTranscript {
  text: string;
  language: string | null;
  duration: number | null;
  segments: SpeechSegment[];
}

export interface TranscribeOptions {
  /** ISO 639-1 hint. */
  language?: string;
  /** Context that helps the model (names, topic). */
  prompt?: string;
}

/** Turns an audio file into text. */
export interface TranscriptionPort {
  /** Whether a real service is configured; without one, transcribing fails with `reason`. */
  readonly configured: boolean;
  readonly reason: string;
  transcribe(file: string, fileName: string): Promise<string>;
  /** The transcript with segment times. */
  transcribeTimed(file: string, fileName: string, options?: TranscribeOptions): Promise<TimedTranscript>;
}

export const TRANSCRIPTION = Symbol('TRANSCRIPTION');

/** A failed transcription; `transient` when trying again later may succeed (unreachable, 429, 5xx). */
export class TranscriptionError extends Error {
  constructor(
    message: string,
    readonly transient = false,
  ) {
    super(message);
  }
}
