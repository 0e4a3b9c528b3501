import { EnergyVoiceActivity } from './energy-voice-activity';
import { SILERO_STATE_SIZE, SileroModel, SileroRun } from './silero-model';
import {
  assertSampleRate,
  SILENCE_THRESHOLD,
  SPEECH_THRESHOLD,
  VadEngine,
  VadSampleRate,
  VoiceActivity,
} from './voice-activity';

/** Windows of 32 ms, with the previous window's last 4 ms as context, as Silero (v5 on) takes them. */
const WINDOW_MS = 32;
const CONTEXT_MS = 4;
/** A window this quiet, or this far below the noise floor, is not speech: no inference. */
export const GATE_MIN_DB = -60;
export const GATE_BELOW_FLOOR_DB = 10;
/** After this many gated windows in a row (256 ms), the model's state starts afresh, as at a stream's start. */
const GATED_WINDOWS_BEFORE_RESET = 8;

/**
 * Silero VAD over one stream: samples are gathered into 32 ms windows (256 at 8 kHz, 512 at 16 kHz) and each
 * full window is judged, synchronously, within the `push` that completes it; the answer in between is the latest
 * window's (so it lags the audio by at most 28 ms: see VoiceActivity.maxLagMs). Per stream: the recurrent state and
 * the context samples; the model itself is shared. Windows far below the noise floor (the energy detector's, fed
 * the same frames) skip the model and read 0.
 */
export class SileroVoiceActivity implements VoiceActivity {
  /** `energy` once the model failed to run (its answers then come from the energy detector). */
  get engine(): VadEngine {
    return this.model.failure ? 'energy' : 'silero';
  }
  readonly maxLagMs: number;
  probability = 0;
  speech = false;
  private readonly window: number;
  private readonly context: number;
  private readonly input: Float32Array;
  private readonly states: [Float32Array, Float32Array];
  private readonly output = new Float32Array(1);
  private readonly runs: [SileroRun, SileroRun];
  private readonly floor: EnergyVoiceActivity;
  private turn = 0;
  private filled = 0;
  private sumSquares = 0;
  private gatedRun = 0;

  constructor(
    private readonly model: SileroModel,
    readonly sampleRate: VadSampleRate = 8000,
  ) {
    assertSampleRate(sampleRate);
    this.window = (sampleRate * WINDOW_MS) / 1000;
    this.context = (sampleRate * CONTEXT_MS) / 1000;
    this.maxLagMs = WINDOW_MS - CONTEXT_MS;
    this.input = new Float32Array(this.context + this.window);
    this.states = [new Float32Array(SILERO_STATE_SIZE), new Float32Array(SILERO_STATE_SIZE)];
    this.runs = model.prepare(sampleRate, this.input, this.states, this.output);
    this.floor = new EnergyVoiceActivity(sampleRate);
  }

  push(samples: Int16Array): number {
    this.floor.push(samples);
    const { input, context, window } = this;
    for (let i = 0; i < samples.length; i++) {
      const x = samples[i] / 32768;
      input[context + this.filled] = x;
      this.sumSquares += x * x;
      this.filled += 1;
      if (this.filled === window) this.judge();
    }
    return this.probability;
  }

  reset(): void {
    this.input.fill(0);
    this.restart();
    this.filled = 0;
    this.sumSquares = 0;
    this.gatedRun = 0;
    this.probability = 0;
    this.speech = false;
    this.floor.reset();
  }

  private judge(): void {
    const ms = this.sumSquares / this.window;
    const db = ms > 0 ? 10 * Math.log10(ms) : -100;
    if (db < Math.max(GATE_MIN_DB, this.floor.floor() - GATE_BELOW_FLOOR_DB)) {
      this.gatedRun += 1;
      if (this.gatedRun === GATED_WINDOWS_BEFORE_RESET) this.restart();
      this.probability = 0;
    } else {
      this.gatedRun = 0;
      if (this.model.run(this.runs[this.turn])) {
        this.turn = 1 - this.turn;
        this.probability = this.output[0];
      } else this.probability = this.floor.probability;
    }
    this.speech = this.speech ? this.probability >= SILENCE_THRESHOLD : this.probability >= SPEECH_THRESHOLD;
    // The window's last samples are the next window's context.
    this.input.copyWithin(0, this.window);
    this.filled = 0;
    this.sumSquares = 0;
  }

  /** The model's recurrent state back to zeros, as at the start of a stream. */
  private restart(): void {
    this.states[0].fill(0);
    this.states[1].fill(0);
    this.turn = 0;
  }
}
