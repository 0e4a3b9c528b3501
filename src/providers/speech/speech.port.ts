/** Speech to text for a call's turns: audio in, the words said. */
export interface SpeechToText {
  readonly configured: boolean;
  /**
   * `wav`: a WAV file (16-bit PCM), or another container named by `file` (a WhatsApp voice note's Ogg/Opus);
   * `language`: a hint (ISO 639-1) or null.
   */
  transcribe(
    wav: Buffer,
    options: { language?: string | null; file?: { name: string; type: string } },
  ): Promise<string>;
}

/** Text to speech for the agent's words: 24 kHz 16-bit mono little-endian PCM. */
export interface TextToSpeech {
  readonly configured: boolean;
  synthesize(text: string, options: { voice?: string | null; speed?: number }): Promise<Buffer>;
}

export const SPEECH_TO_TEXT = Symbol('SPEECH_TO_TEXT');
export const TEXT_TO_SPEECH = Symbol('TEXT_TO_SPEECH');

export class SpeechError extends Error {}

/** The default with no configuration: nothing to call, every use fails. */
export class NoSpeech implements SpeechToText, TextToSpeech {
  readonly configured = false;

  transcribe(): Promise<string> {
    return Promise.reject(new SpeechError('Speech services are not configured'));
  }

  synthesize(): Promise<Buffer> {
    return Promise.reject(new SpeechError('Speech services are not configured'));
  }
}
