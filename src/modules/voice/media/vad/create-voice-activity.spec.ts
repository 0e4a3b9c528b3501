import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Logger } from '@nestjs/common';
import { loadConfig } from '@/config/app.config';
import { createVoiceActivity, sileroModel } from './create-voice-activity';
import { EnergyVoiceActivity } from './energy-voice-activity';
import { SileroVoiceActivity } from './silero-voice-activity';

describe('createVoiceActivity', () => {
  let dir: string;
  let warn: jest.SpyInstance;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vad-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => warn.mockRestore());

  it('answers Silero on the bundled weights by default, at 8 or 16 kHz, sharing one model', () => {
    const calls = createVoiceActivity();
    expect(calls).toBeInstanceOf(SileroVoiceActivity);
    expect(calls).toMatchObject({ engine: 'silero', sampleRate: 8000, maxLagMs: 28 });
    expect(createVoiceActivity({ sampleRate: 16000 })).toMatchObject({ engine: 'silero', sampleRate: 16000 });
    expect(sileroModel()).toBe(sileroModel());
    expect(sileroModel()!.path).toMatch(/@jjhbw[/\\]silero-vad[/\\]weights[/\\]silero_vad\.onnx$/);
    expect(warn).not.toHaveBeenCalled();
  });

  it('answers the energy detector when asked to (VAD=energy)', () => {
    const vad = createVoiceActivity({ ...loadConfig({ VAD: 'energy' }).vad, sampleRate: 16000 });
    expect(vad).toBeInstanceOf(EnergyVoiceActivity);
    expect(vad).toMatchObject({ engine: 'energy', sampleRate: 16000, maxLagMs: 0 });
  });

  it('falls back to the energy detector when the model file is missing, and says so once per process', () => {
    const missing = path.join(dir, 'missing.onnx');
    const options = loadConfig({ VAD_MODEL_PATH: missing }).vad;
    expect(createVoiceActivity(options)).toBeInstanceOf(EnergyVoiceActivity);
    expect(createVoiceActivity(options)).toBeInstanceOf(EnergyVoiceActivity);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toBe(
      `Silero VAD model ${missing} cannot be loaded (no such file); voice activity falls back to the energy detector`,
    );
  });

  it('falls back to the energy detector when the file is not a Silero model', () => {
    const garbage = path.join(dir, 'garbage.onnx');
    fs.writeFileSync(garbage, 'not a model');
    expect(createVoiceActivity({ modelPath: garbage })).toBeInstanceOf(EnergyVoiceActivity);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toContain(`Silero VAD model ${garbage} cannot be loaded (`);
  });

  it('takes 8 or 16 kHz audio only', () => {
    expect(() => createVoiceActivity({ sampleRate: 44100 as 8000 })).toThrow(
      'Voice activity takes 8000 or 16000 Hz audio, not 44100',
    );
  });
});
