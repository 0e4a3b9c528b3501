import type { CallRuntime } from '@/modules/calls/call-runtime.service';
import type { SpeechToText, TextToSpeech } from '@/providers/speech/speech.port';

/** What the session reads from the agent's `settings.voice` (10.4) and profile. */
export interface VoiceSettings {
  endOfTurnSilenceMs: number;
  interruptible: boolean;
  voice: string | null;
  speed: number;
  language: string | null;
}

export interface SessionDeps {
  stt: SpeechToText;
  tts: TextToSpeech;
  runtime: CallRuntime;
  /** Stores that the reply with this message uuid was cut by the customer. */
  interrupted: (messageId: string) => Promise<void>;
  /** Called once per turn that reached its first reply frame, with its timing (the voice benchmark reads it). */
  onTurnTiming?: (timing: TurnTiming) => void;
}

/** How a turn started with `MediaSession.startTurn` ended. */
export type TurnOutcome = 'answered' | 'cancelled' | 'failed';

/** A customer turn started on a session: committed at once, or speculative until `commit`. */
export interface SessionTurn {
  /**
   * The customer has finished: the turn's message is stored, its rules act, its tools run and its reply (held so far)
   * is spoken. Does nothing once the turn was cancelled or committed.
   */
  commit(): void;
  /**
   * The customer went on. Before the commit the turn leaves no trace: no message, event or tool call, nothing
   * spoken, and its model request is aborted. After the commit its reply stops streaming and is marked interrupted,
   * as on a barge-in (the stored reply stays).
   */
  cancel(): void;
  /** Settles when the turn is over; never rejects. */
  readonly done: Promise<TurnOutcome>;
}

export interface StartTurnOptions {
  /** Hold the turn until `commit()` (default false: committed at once). */
  speculative?: boolean;
  /** `dtmf` for keys (default `text`). */
  type?: 'text' | 'dtmf';
  /** When the customer's speech ended (performance.now()), for the turn's timing. */
  speechEndAt?: number;
}

/**
 * Measured per turn for the voice benchmark (performance.now() instants): the last speech frame in, the turn
 * detected, speech to text sent and answered, the model's first words, the first sentence's audio synthesised, the
 * first reply frame out. Zero when a step did not happen.
 */
export interface TurnTiming {
  speechEndAt: number;
  detectedAt: number;
  sttSentAt: number;
  sttDoneAt: number;
  firstDeltaAt: number;
  firstSentenceAt: number;
  firstAudioAt: number;
  firstFrameAt: number;
}
/** A turn's timing as it is detected. */
export const newTiming = (speechEndAt: number, detectedAt: number): TurnTiming => ({
  speechEndAt,
  detectedAt,
  sttSentAt: 0,
  sttDoneAt: 0,
  firstDeltaAt: 0,
  firstSentenceAt: 0,
  firstAudioAt: 0,
  firstFrameAt: 0,
});
