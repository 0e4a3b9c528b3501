import { energyDb } from '../audio';
import {
  assertSampleRate,
  SILENCE_THRESHOLD,
  SPEECH_THRESHOLD,
  VadSampleRate,
  VoiceActivity,
} from './voice-activity';

/** A frame is speech this far above the noise floor (probability 0.5 exactly there). */
export const ENERGY_SPEECH_ABOVE_FLOOR_DB = 12;
/** The noise floor never reads lower than this (digital silence would otherwise make any click speech). */
export const ENERGY_FLOOR_MIN_DB = -60;
/** Frames whose energy makes the noise floor: the last 2 s of 20 ms frames. */
const FLOOR_FRAMES = 100;
/** The floor is the 10th percentile of those frames, recomputed every 5 frames (100 ms): it moves slowly. */
const FLOOR_PERCENTILE = 0.1;
const FLOOR_EVERY = 5;
/** dB over which the probability goes from 0.27 to 0.73 around the speech level (a logistic curve). */
const SLOPE_DB = 2;

/**
 * Energy-based voice activity with an adaptive noise floor: each frame's energy (dBFS) against the 10th percentile
 * of the last 2 s (at least -60 dBFS); speech from 12 dB above it. The probability is a logistic curve of the
 * distance to that level, so 0.5 falls exactly on it. Cheap (one pass over the samples), no lag.
 */
export class EnergyVoiceActivity implements VoiceActivity {
  readonly engine = 'energy' as const;
  readonly maxLagMs = 0;
  probability = 0;
  speech = false;
  private readonly history = new Float64Array(FLOOR_FRAMES);
  private readonly sorted = new Float64Array(FLOOR_FRAMES);
  private count = 0;
  private next = 0;
  private sinceFloor = 0;
  private floorDb = ENERGY_FLOOR_MIN_DB;

  constructor(readonly sampleRate: VadSampleRate = 8000) {
    assertSampleRate(sampleRate);
  }

  push(samples: Int16Array): number {
    const db = energyDb(samples);
    const above = db - this.floorDb - ENERGY_SPEECH_ABOVE_FLOOR_DB;
    this.observe(db);
    this.probability = 1 / (1 + Math.exp(-above / SLOPE_DB));
    this.speech = this.speech ? this.probability >= SILENCE_THRESHOLD : this.probability >= SPEECH_THRESHOLD;
    return this.probability;
  }

  /** The adaptive noise floor in dBFS, as of the frames pushed so far. */
  floor(): number {
    return this.floorDb;
  }

  /** Records a frame's energy (dBFS) into the noise floor's history. */
  observe(db: number): void {
    this.history[this.next] = db;
    this.next = (this.next + 1) % FLOOR_FRAMES;
    this.count = Math.min(this.count + 1, FLOOR_FRAMES);
    this.sinceFloor += 1;
    if (this.sinceFloor < FLOOR_EVERY && this.count > FLOOR_EVERY) return;
    this.sinceFloor = 0;
    const window = this.sorted.subarray(0, this.count);
    window.set(this.history.subarray(0, this.count));
    window.sort();
    this.floorDb = Math.max(ENERGY_FLOOR_MIN_DB, window[Math.floor(this.count * FLOOR_PERCENTILE)]);
  }

  reset(): void {
    this.count = 0;
    this.next = 0;
    this.sinceFloor = 0;
    this.floorDb = ENERGY_FLOOR_MIN_DB;
    this.probability = 0;
    this.speech = false;
  }
}
