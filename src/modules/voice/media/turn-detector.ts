import { performance } from 'node:perf_hooks';
import { energyDb, FRAME_MS } from './audio';
import { createVoiceActivity, VoiceActivity, VoiceActivityOptions } from './vad';

/** Speech this long (consecutive frames the voice activity calls speech) starts an utterance. */
const START_MS = 60;
/** Speech this long after a reported pause means the caller went on. */
const RESUME_MS = 40;
/** Utterances with less speech than this are dropped (clicks, a breath). */
const MIN_UTTERANCE_MS = 200;
/** Speech this long without the end-of-turn silence is cut into a turn. */
const MAX_TURN_MS = 30_000;
/**
 * The caller's own speech reaches this level (dBFS of a 20 ms frame) for BACKGROUND_LOUD_MS at least; voices that
 * never do are background (a room, a television, babble ten decibels under the caller) and make no utterance.
 */
export const BACKGROUND_SPEECH_DB = -26;
const BACKGROUND_LOUD_MS = 60;

export type TurnEvent =
  | { type: 'speech-start' }
  /** The caller fell silent `hushMs` within an utterance, not yet a pause (once per silence). */
  | { type: 'hush'; speechEndAt: number }
  /** The caller paused `pauseMs` within an utterance: its audio so far (the pause's silence included). */
  | { type: 'pause'; audio: Int16Array; speechEndAt: number }
  /** The caller went on after a reported pause or hush. */
  | { type: 'resume' }
  /** The utterance ended: `endSilenceMs` of silence after it (or MAX_TURN_MS of speech). */
  | { type: 'turn'; audio: Int16Array; speechMs: number; speechEndAt: number }
  | null;

export interface TurnDetectorOptions {
  /** Silence that ends an utterance (a turn). */
  endSilenceMs: number;
  /** Silence within an utterance reported as a `pause` (once per pause); none: pauses are not reported. */
  pauseMs?: number | null;
  /** Silence within an utterance reported as a `hush`, shorter than `pauseMs`; none: not reported. */
  hushMs?: number | null;
  /** The voice activity detector (Silero, or energy); its sample rate is the frames'. */
  vad?: VoiceActivityOptions;
}

/**
 * Utterances of one caller, from 20 ms frames of PCM: a frame is speech when the voice activity detector says so
 * (Silero VAD, or the energy detector with its adaptive noise floor when the model is off or missing). An utterance
 * starts after 60 ms of speech, reports each hush of `hushMs` and pause of `pauseMs` (smart endpointing starts a
 * reply on the words heard, and commits them) and a resume after it, and ends after `endSilenceMs` of silence.
 * Utterances under 200 ms of speech, or never as loud as the caller's own voice (BACKGROUND_SPEECH_DB), are dropped.
 */
export class TurnDetector {
  readonly vad: VoiceActivity;
  private frames: Int16Array[] = [];
  private speechRun = 0;
  private loudRun = 0;
  private silenceRun = 0;
  private speechFrames = 0;
  private loudFrames = 0;
  private inTurn = false;
  private paused = false;
  private hushed = false;
  private lastSpeechAt = 0;

  constructor(private readonly options: TurnDetectorOptions) {
    this.vad = createVoiceActivity(options.vad);
  }

  /** The sample rate of the frames (the voice activity's). */
  get sampleRate(): 8000 | 16000 {
    return this.vad.sampleRate;
  }

  /** Whether an utterance is being heard (from its start until its end or `cut`). */
  get hearing(): boolean {
    return this.inTurn;
  }

  /** Speech heard in the current utterance, ms. */
  get speechMs(): number {
    return this.inTurn ? this.speechFrames * FRAME_MS : 0;
  }

  /** Silence since the current utterance's last speech, ms (0 while speaking or between utterances). */
  get silenceMs(): number {
    return this.inTurn ? this.silenceRun * FRAME_MS : 0;
  }

  /** When the current utterance's last speech frame came in (performance.now()). */
  get speechEndAt(): number {
    return this.lastSpeechAt;
  }

  /** Whether the current utterance is loud enough to be the caller's (not background speech). */
  get audible(): boolean {
    return this.loudFrames * FRAME_MS >= BACKGROUND_LOUD_MS;
  }

  /** The current utterance's audio so far. */
  audio(): Int16Array {
    return join(this.frames);
  }

  /** Takes the next 20 ms frame; answers what it changed. */
  push(samples: Int16Array): TurnEvent {
    this.vad.push(samples);
    const speech = this.vad.speech;
    const loud = speech && energyDb(samples) >= BACKGROUND_SPEECH_DB;
    if (!this.inTurn) {
      this.speechRun = speech ? this.speechRun + 1 : 0;
      this.loudRun = speech ? this.loudRun + (loud ? 1 : 0) : 0;
      this.frames.push(samples);
      if (this.frames.length > this.speechRun + 1) this.frames.shift();
      if (this.speechRun * FRAME_MS < START_MS || this.loudRun === 0) return null;
      this.inTurn = true;
      this.paused = false;
      this.hushed = false;
      this.silenceRun = 0;
      this.speechFrames = this.speechRun;
      this.loudFrames = this.loudRun;
      this.lastSpeechAt = performance.now();
      return { type: 'speech-start' };
    }
    this.frames.push(samples);
    if (this.frames.length * FRAME_MS >= MAX_TURN_MS) return this.finish();
    if (speech) {
      this.speechFrames += 1;
      if (loud) this.loudFrames += 1;
      this.silenceRun = 0;
      this.speechRun += 1;
      this.lastSpeechAt = performance.now();
      if ((this.paused || this.hushed) && this.speechRun * FRAME_MS >= RESUME_MS) {
        this.paused = false;
        this.hushed = false;
        return { type: 'resume' };
      }
      return null;
    }
    this.speechRun = 0;
    this.silenceRun += 1;
    const silence = this.silenceRun * FRAME_MS;
    if (silence >= this.options.endSilenceMs) return this.finish();
    const pauseMs = this.options.pauseMs;
    if (pauseMs && !this.paused && silence >= pauseMs && this.heard()) {
      this.paused = true;
      return { type: 'pause', audio: this.audio(), speechEndAt: this.lastSpeechAt };
    }
    const hushMs = this.options.hushMs;
    if (hushMs && !this.hushed && !this.paused && silence >= hushMs && this.heard()) {
      this.hushed = true;
      return { type: 'hush', speechEndAt: this.lastSpeechAt };
    }
    return null;
  }

  /** Ends the current utterance here, its audio dropped (its turn was taken, or it was a backchannel). */
  cut(): void {
    this.frames = [];
    this.inTurn = false;
    this.paused = false;
    this.hushed = false;
    this.speechRun = 0;
    this.loudRun = 0;
    this.silenceRun = 0;
    this.speechFrames = 0;
    this.loudFrames = 0;
  }

  /** Enough speech, loud enough, for an utterance worth transcribing. */
  private heard(): boolean {
    return this.speechFrames * FRAME_MS >= MIN_UTTERANCE_MS && this.audible;
  }

  private finish(): TurnEvent {
    const heard = this.heard();
    const speechMs = this.speechFrames * FRAME_MS;
    const audio = this.audio();
    this.cut();
    return heard ? { type: 'turn', audio, speechMs, speechEndAt: this.lastSpeechAt } : null;
  }
}

function join(frames: Int16Array[]): Int16Array {
  const audio = new Int16Array(frames.reduce((n, f) => n + f.length, 0));
  let at = 0;
  for (const f of frames) {
    audio.set(f, at);
    at += f.length;
  }
  return audio;
}
