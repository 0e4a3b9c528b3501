import type { WorkspaceId } from '@/common/auth/workspace-id';
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

export interface SttStreamOptions {
  /** ISO 639-1 hint. */
  language?: string | null;
  /** The rate of the samples given to `push`. */
  sampleRate: 8000 | 16000 | 24000;
  /** Aborting it closes the stream (as `close`). */
  signal?: AbortSignal;
  /** The call the stream listens to: one stream per call, a second one for the same call closes the first. */
  callId?: string;
  /** The call's workspace, for `openSessions`. */
  workspaceId?: WorkspaceId;
}

/** What `SttStream` tells its listeners. */
export interface SttStreamEvents {
  /**
   * New words: of the open segment (`committed` false; those deltas put end to end are `interim()`), or of a
   * committed segment still waiting for its final words (a service that transcribes only committed audio).
   */
  delta: (text: string, committed: boolean) => void;
  /** A segment's final words, as `commit()` answers them. */
  final: (text: string) => void;
  /** A problem the stream survives (a service error not tied to a segment); emitted only when listened to. */
  error: (err: SpeechError) => void;
  /** The stream gave up for good (session refused, or the connection lost beyond the reconnect bound). */
  fallback: (err: SpeechError) => void;
}

/**
 * The caller's speech as it happens, over one connection held for the whole call (reconnected when it drops, the
 * audio not yet transcribed sent again). The audio is cut into segments by `commit`; each answers its final words
 * once. After `fallback` (or `close`) `push` does nothing and `commit` rejects: the caller transcribes in batch.
 */
export interface SttStream {
  /** Adds audio (16-bit mono at the stream's `sampleRate`) to the current segment. Never blocks. */
  push(pcm: Int16Array): void;
  /**
   * Ends the current segment; answers its final words (trimmed, '' for silence or no audio). Rejects with a
   * SpeechError (`timeout`, `invalid_response` when the service failed the segment, `fallback`, `aborted` on close).
   */
  commit(): Promise<string>;
  /** The words heard so far of the current segment (the audio since the last commit). */
  interim(): string;
  on<E extends keyof SttStreamEvents>(event: E, listener: SttStreamEvents[E]): this;
  off<E extends keyof SttStreamEvents>(event: E, listener: SttStreamEvents[E]): this;
  /** Ends the stream and its connection; pending commits reject `aborted`. Idempotent. */
  close(): void;
}

/** Speech to text while the caller speaks (STT_MODE=realtime or `settings.voice.stt_mode: "realtime"`). */
export interface StreamingSpeechToText {
  readonly configured: boolean;
  /**
   * Opens a stream once its session is accepted. Rejects with a SpeechError `fallback` when the service cannot be
   * reached or refuses the session within the connect bound (logged once and counted): the call uses batch.
   */
  openStream(options: SttStreamOptions): Promise<SttStream>;
  /** Streams open now, in all or in one workspace (at most one per live call). */
  openSessions(workspaceId?: WorkspaceId): number;
}

export const SPEECH_TO_TEXT = Symbol('SPEECH_TO_TEXT');
export const SPEECH_TO_TEXT_STREAM = Symbol('SPEECH_TO_TEXT_STREAM');

/** Whether `settings.voice.stt_mode` may hold the value: `batch`, `realtime`, or nothing (the configured mode). */
export function validSttMode(value: unknown): boolean {
  return value === undefined || value === null || value === 'batch' || value === 'realtime';
}

/**
 * The speech-to-text mode of an agent's call: its `settings.voice.stt_mode` when `batch` or `realtime`, else the
 * configured default (STT_MODE). Realtime also needs `StreamingSpeechToText.configured`.
 */
export function sttModeOf(voice: unknown, fallback: 'batch' | 'realtime'): 'batch' | 'realtime' {
  const mode = (voice as { stt_mode?: unknown } | null | undefined)?.stt_mode;
  return mode === 'batch' || mode === 'realtime' ? mode : fallback;
}
export const TEXT_TO_SPEECH = Symbol('TEXT_TO_SPEECH');

/**
 * What went wrong: `unreachable` (connection failed or broke off), `timeout`, `http` (an error status, in
 * `status`), `too_large`, `invalid_response`, `aborted` (the caller's signal), `not_configured`, `fallback` (a
 * speech-to-text stream gave up: use batch).
 */
export type SpeechErrorKind =
  | 'unreachable'
  | 'timeout'
  | 'http'
  | 'too_large'
  | 'invalid_response'
  | 'aborted'
  | 'not_configured'
  | 'fallback';

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

/** The default without a realtime endpoint: no stream opens, every call uses batch. */
export class NoSpeechStream implements StreamingSpeechToText {
  readonly configured = false;

  openStream(): Promise<SttStream> {
    return Promise.reject(new SpeechError('Realtime speech to text is not configured', 'not_configured'));
  }

  openSessions(): number {
    return 0;
  }
}
