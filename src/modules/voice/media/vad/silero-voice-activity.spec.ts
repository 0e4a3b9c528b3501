import * as fs from 'node:fs';
import * as path from 'node:path';
import { Logger } from '@nestjs/common';
import { energyDb } from '../audio';
import { sileroModel } from './create-voice-activity';
import { SileroModel } from './silero-model';
import { SileroVoiceActivity } from './silero-voice-activity';
import { framesOf, whiteNoise } from './synthetic-audio';
import { VadSampleRate } from './voice-activity';
import { readWav } from './wav';

const FIXTURES = path.join(__dirname, '../../../../../test/fixtures/voice');
/** A spoken phrase between 0.5 s silences (scripts/voice-fixtures.sh); the 8 kHz one as a phone line carries it. */
const speech = (rate: VadSampleRate) =>
  readWav(fs.readFileSync(path.join(FIXTURES, `speech-${rate / 1000}k.wav`)));

describe('SileroVoiceActivity', () => {
  let model: SileroModel;
  beforeAll(() => {
    model = sileroModel()!;
    expect(model).toBeInstanceOf(SileroModel);
  });

  it('reads digital silence and low noise as non-speech', () => {
    const vad = new SileroVoiceActivity(model, 8000);
    expect(vad).toMatchObject({ engine: 'silero', sampleRate: 8000, maxLagMs: 28, probability: 0 });
    for (let i = 0; i < 50; i++) expect(vad.push(new Int16Array(160))).toBe(0);
    // -45 dBFS of hiss: above the gate, so the model judges it.
    for (const frame of framesOf(whiteNoise(8000 * 3, 320), 160)) {
      expect(vad.push(frame)).toBeLessThan(0.2);
      expect(vad.speech).toBe(false);
    }
  });

  it.each([8000, 16000] as const)(
    'reads a spoken phrase at %i Hz as speech on nearly all its voiced frames, and not its silences',
    (rate) => {
      const { sampleRate, samples } = speech(rate);
      expect(sampleRate).toBe(rate);
      const vad = new SileroVoiceActivity(model, rate);
      const frames = framesOf(samples, rate / 50);
      const said = frames.map((f) => (vad.push(f), vad.speech));
      const voiced = frames.flatMap((f, i) => (energyDb(f) > -35 ? [said[i]] : []));
      expect(voiced.length).toBeGreaterThan(60);
      expect(voiced.filter(Boolean).length / voiced.length).toBeGreaterThan(0.85);
      // The leading 0.5 s of silence and the trailing silence (past a short hangover) are not speech.
      expect(said.slice(0, 25).some(Boolean)).toBe(false);
      expect(said.slice(-15).some(Boolean)).toBe(false);
      expect(Math.max(...said.map((s, i) => (s ? i : 0)))).toBeLessThan(frames.length - 15);
      expect(vad.engine).toBe('silero');
    },
  );

  it('keeps each stream its own state over the shared model, whatever the frame size; reset starts afresh', () => {
    const { samples } = speech(8000);
    const alone = new SileroVoiceActivity(model, 8000);
    const reference = framesOf(samples, 160).map((f) => alone.push(f));
    // Another stream interleaved with one fed odd-sized chunks: the same answers at every 20 ms boundary.
    const a = new SileroVoiceActivity(model, 8000);
    const b = new SileroVoiceActivity(model, 8000);
    const noise = framesOf(whiteNoise(samples.length, 2000), 160);
    const got: number[] = [];
    for (let i = 0; i < reference.length; i++) {
      b.push(noise[i]);
      a.push(samples.subarray(i * 160, i * 160 + 70));
      got.push(a.push(samples.subarray(i * 160 + 70, (i + 1) * 160)));
    }
    expect(got).toEqual(reference);
    alone.reset();
    expect(alone).toMatchObject({ probability: 0, speech: false });
    expect(framesOf(samples, 160).map((f) => alone.push(f))).toEqual(reference);
  });

  it('judges each 32 ms window within the push that completes it', () => {
    const vad = new SileroVoiceActivity(model, 8000);
    for (let i = 0; i < 8; i++) vad.push(new Int16Array(256));
    const hiss = whiteNoise(256, 3000);
    vad.push(hiss.subarray(0, 255));
    expect(vad.probability).toBe(0);
    vad.push(hiss.subarray(255));
    expect(vad.probability).toBeGreaterThan(0);
  });

  it('answers from energy, once the model fails to run, and says so once', () => {
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const broken = SileroModel.load(model.path);
      (broken as unknown as { session: { dispose(): void } }).session.dispose();
      const vad = new SileroVoiceActivity(broken, 8000);
      const { samples } = speech(8000);
      const answers = framesOf(samples, 160).map((f) => vad.push(f));
      expect(vad.engine).toBe('energy');
      expect(answers.some((p) => p > 0.5)).toBe(true);
      expect(error).toHaveBeenCalledTimes(1);
      expect(error.mock.calls[0][0]).toContain(`Silero VAD model ${model.path} failed (`);
    } finally {
      error.mockRestore();
    }
  });
});
