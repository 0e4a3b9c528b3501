import type { CallRuntime } from '@/modules/calls/runtime/call-runtime.service';
import type { MessageLatency } from '@/modules/conversations/message.entity';
import type { SpeechToText, SttStream, TextToSpeech } from '@/providers/speech/speech.port';
import type { VoiceActivityOptions } from './vad';

/** What the session reads from the agent's `settings.voice` (10.4) and profile. */
export interface VoiceSettings {
  /** The silence that ends a turn in `fixed` endpointing. */
  endOfTurnSilenceMs: number;
  /**
   * `smart`: at a pause of `minSilenceMs` the words so far are transcribed and the reply prepared; the turn ends
   * once the words read as finished, else after `maxSilenceMs`. `fixed`: after `endOfTurnSilenceMs` of silence.
   */
  endpointing: { mode: 'smart' | 'fixed'; minSilenceMs: number; maxSilenceMs: number };
  interruptible: boolean;
  /**
   * Speech over the agent stops it once `minSpeechMs` long and its words are not only `ignoreWords` (backchannels);
   * 0: any speech stops it at once.
   */
  interruption: { minSpeechMs: number; ignoreWords: string[] };
  /** Speech plays as it is synthesised (false: each phrase is synthesised whole before it plays). */
  streamSpeech: boolean;
  voice: string | null;
  speed: number;
  language: string | null;
}

/** A call's speech-to-text stream in realtime mode (see `callSpeech`). */
export interface SttStreamOpener {
  /** Opens the call's stream: null when it may not (the workspace's limit) or could not (logged; batch then). */
  open(options: {
    sampleRate: 8000 | 16000;
    language: string | null;
    signal: AbortSignal;
  }): Promise<SttStream | null>;
  /** The next `ms` of audio transcribed in batch were already counted by the stream (a turn after a fallback). */
  counted(ms: number): void;
}

export interface SessionDeps {
  /** Batch speech to text, counted in the call's usage. */
  stt: SpeechToText;
  tts: TextToSpeech;
  /** Realtime mode: the caller's speech is streamed to speech to text as it is heard. */
  sttStream?: SttStreamOpener;
  runtime: CallRuntime;
  /** Stores that the reply with this message uuid was cut by the customer. */
  interrupted: (messageId: string) => Promise<void>;
  /** Called once per turn that reached its first reply frame, with its timing (the voice benchmark reads it). */
  onTurnTiming?: (timing: TurnTiming) => void;
  /** Stores a reply's turn timing once its first audio frame went out (never throws). */
  latency?: (messageId: string, latency: MessageLatency) => void;
  /** The voice activity detector (config VAD, VAD_MODEL_PATH); the rate is the transport's. */
  vad?: Omit<VoiceActivityOptions, 'sampleRate'>;
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
  /** When the words were sent to speech to text and came back (performance.now()), for the turn's timing. */
  sttSentAt?: number;
  sttDoneAt?: number;
}

/**
 * Measured per turn (performance.now() instants): the last speech frame in, the turn decided (its end detected,
 * or its speculative reply committed), speech to text sent and answered, the model asked and its first words, the
 * first sentence sent to speech and its first audio back, the first reply frame out. Zero when a step did not
 * happen. Stored on the reply as its `latency` and read by the voice benchmark.
 */
export interface TurnTiming {
  speechEndAt: number;
  detectedAt: number;
  sttSentAt: number;
  sttDoneAt: number;
  modelAt: number;
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
  modelAt: 0,
  firstDeltaAt: 0,
  firstSentenceAt: 0,
  firstAudioAt: 0,
  firstFrameAt: 0,
});

/** A turn's timing as the reply's `latency` (whole ms, null for a step that did not happen). */
export function latencyOf(t: TurnTiming): MessageLatency {
  const span = (from: number, to: number) => (from && to && to >= from ? Math.round(to - from) : null);
  return {
    endpoint_ms: span(t.speechEndAt, t.detectedAt),
    stt_ms: span(t.sttSentAt, t.sttDoneAt),
    model_first_token_ms: span(t.modelAt, t.firstDeltaAt),
    tts_first_audio_ms: span(t.firstSentenceAt, t.firstAudioAt),
    voice_to_voice_ms: span(t.speechEndAt, t.firstFrameAt),
  };
}
