import { energyDb, FRAME_MS } from './audio';

export const SPEECH_ABOVE_FLOOR_DB = 12;
export const FLOOR_MIN_DB = -60;
const FLOOR_WINDOW_FRAMES = 2000 / FRAME_MS;
const START_FRAMES = 60 / FRAME_MS;
const MIN_UTTERANCE_MS = 200;
const MAX_TURN_MS = 30_000;

export type TurnEvent =
  { type: 'speech-start' } | { type: 'turn'; audio: Int16Array; speechMs: number } | null;

/**
 * Energy-based voice activity with an adaptive noise floor (10th percentile of the last 2 s, at least -60 dBFS):
 * a frame is speech 12 dB above the floor; a turn starts after 60 ms of speech and ends after `endSilenceMs` of
 * non-speech; utterances under 200 ms are dropped; 30 s of speech is cut into a turn.
 */
export class TurnDetector {
  private readonly history: number[] = [];
  private readonly frames: Int16Array[] = [];
  private speechRun = 0;
  private silenceRun = 0;
  private speechFrames = 0;
  private inTurn = false;

  constructor(private readonly endSilenceMs: number) {}

  /** The frames are 20 ms of 8 kHz PCM; answers `speech-start` when a turn begins, `turn` when one ends. */
  push(samples: Int16Array): TurnEvent {
    const db = energyDb(samples);
    const speech = db >= this.floor() + SPEECH_ABOVE_FLOOR_DB;
    this.history.push(db);
    if (this.history.length > FLOOR_WINDOW_FRAMES) this.history.shift();
    if (!this.inTurn) {
      this.speechRun = speech ? this.speechRun + 1 : 0;
      this.frames.push(samples);
      if (this.frames.length > START_FRAMES) this.frames.shift();
      if (this.speechRun < START_FRAMES) return null;
      this.inTurn = true;
      this.silenceRun = 0;
      this.speechFrames = this.speechRun;
      return { type: 'speech-start' };
    }
    this.frames.push(samples);
    if (speech) {
      this.speechFrames += 1;
      this.silenceRun = 0;
    } else this.silenceRun += 1;
    const ended = this.silenceRun * FRAME_MS >= this.endSilenceMs;
    if (!ended && this.frames.length * FRAME_MS < MAX_TURN_MS) return null;
    return this.finish();
  }

  private finish(): TurnEvent {
    const speechMs = this.speechFrames * FRAME_MS;
    const all = this.frames.splice(0);
    this.inTurn = false;
    this.speechRun = 0;
    this.silenceRun = 0;
    this.speechFrames = 0;
    if (speechMs < MIN_UTTERANCE_MS) return null;
    const total = all.reduce((n, f) => n + f.length, 0);
    const audio = new Int16Array(total);
    let at = 0;
    for (const f of all) {
      audio.set(f, at);
      at += f.length;
    }
    return { type: 'turn', audio, speechMs };
  }

  /** The adaptive noise floor in dBFS. */
  floor(): number {
    if (!this.history.length) return FLOOR_MIN_DB;
    const sorted = [...this.history].sort((a, b) => a - b);
    return Math.max(FLOOR_MIN_DB, sorted[Math.floor(sorted.length * 0.1)]);
  }
}
