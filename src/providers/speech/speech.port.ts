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

export interface SynthesisOptions {
  voice?: string | null;
  speed?: number;
}

/** Text to speech for the agent's words: 24 kHz 16-bit mono little-endian PCM. */
export interface TextToSpeech {
  readonly configured: boolean;
  /** The whole audio of `text`. */
  synthesize(text: string, options: SynthesisOptions, signal?: AbortSignal): Promise<Buffer>;
  /**
   * The audio of `text` as it arrives: chunks of whole samples (an even number of bytes, never empty). `signal`
   * aborting closes the request at once and the iteration throws SpeechError `aborted`; leaving the iteration early
   * (`break`) closes it too. Failures are the SpeechErrors of `synthesize`.
   */
  synthesizeStream(text: string, options: SynthesisOptions, signal?: AbortSignal): AsyncIterable<Buffer>;
}

export const SPEECH_TO_TEXT = Symbol('SPEECH_TO_TEXT');
export const TEXT_TO_SPEECH = Symbol('TEXT_TO_SPEECH');

/**
 * What went wrong: `unreachable` (connection failed or broke off), `timeout`, `http` (an error status, in
 * `status`), `too_large`, `invalid_response`, `aborted` (the caller's signal), `not_configured`.
 */
export type SpeechErrorKind =
  'unreachable' | 'timeout' | 'http' | 'too_large' | 'invalid_response' | 'aborted' | 'not_configured';

export class SpeechError extends Error {
  constructor(
    message: string,
    readonly kind: SpeechErrorKind = 'unreachable',
    readonly status?: number,
  ) {
    super(message);
    this.name = 'SpeechError';
  }
}

const notConfigured = () => new SpeechError('Speech services are not configured', 'not_configured');

/** The default with no configuration: nothing to call, every use fails. */
export class NoSpeech implements SpeechToText, TextToSpeech {
  readonly configured = false;

  transcribe(): Promise<string> {
    return Promise.reject(notConfigured());
  }

  synthesize(): Promise<Buffer> {
    return Promise.reject(notConfigured());
  }

  // eslint-disable-next-line require-yield
  async *synthesizeStream(): AsyncIterable<Buffer> {
    throw notConfigured();
  }
}
