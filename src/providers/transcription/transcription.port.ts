/** Turns an audio file into text. */
export interface TranscriptionPort {
  /** Whether a real service is configured; without one, transcribing fails with `reason`. */
  readonly configured: boolean;
  readonly reason: string;
  transcribe(file: string, fileName: string): Promise<string>;
}

export const TRANSCRIPTION = Symbol('TRANSCRIPTION');

export class TranscriptionError extends Error {}
