import { EnergyVoiceActivity } from './energy-voice-activity';
import { sine, whiteNoise } from './synthetic-audio';

/** Deterministic white noise, and a 440 Hz tone, as 20 ms frames at 8 kHz. */
function noise(amplitude: number): () => Int16Array {
  let seed = 1;
  return () => whiteNoise(160, amplitude, seed++);
}
const tone = (amplitude: number, index: number) => sine(160, amplitude, 440, 8000, index * 160);

describe('EnergyVoiceActivity', () => {
  it('reads silence and low noise as non-speech, a loud voice over them as speech, and answers without lag', () => {
    const vad = new EnergyVoiceActivity(8000);
    expect(vad).toMatchObject({ engine: 'energy', sampleRate: 8000, maxLagMs: 0, probability: 0 });
    for (let i = 0; i < 50; i++) expect(vad.push(new Int16Array(160))).toBeLessThan(0.01);
    const hiss = noise(30);
    for (let i = 0; i < 100; i++) expect(vad.push(hiss())).toBeLessThan(0.1);
    expect(vad.speech).toBe(false);
    expect(vad.push(tone(8000, 0))).toBeGreaterThan(0.99);
    expect(vad.speech).toBe(true);
  });

  it('follows the noise floor: a steady loud noise stops reading as speech within 2 s', () => {
    const vad = new EnergyVoiceActivity(8000);
    const roar = noise(3000);
    const answers = Array.from({ length: 150 }, () => vad.push(roar()));
    expect(answers[0]).toBeGreaterThan(0.99);
    expect(answers.slice(100).every((p) => p < 0.1)).toBe(true);
    expect(vad.floor()).toBeGreaterThan(-30);
    vad.reset();
    expect(vad).toMatchObject({ probability: 0, speech: false });
    expect(vad.floor()).toBe(-60);
  });

  it('keeps reading speech through a slightly softer frame (hysteresis)', () => {
    const vad = new EnergyVoiceActivity(8000);
    for (let i = 0; i < 50; i++) vad.push(new Int16Array(160));
    // The floor is -60 dBFS: speech from -48 (amplitude ~ 180 for a sine); -48.7 dBFS still reads as speech.
    vad.push(tone(400, 0));
    expect(vad.speech).toBe(true);
    expect(vad.push(tone(170, 1))).toBeLessThan(0.5);
    expect(vad.speech).toBe(true);
    vad.push(tone(60, 2));
    expect(vad.speech).toBe(false);
  });

  it('takes 8 or 16 kHz audio only', () => {
    expect(new EnergyVoiceActivity(16000).sampleRate).toBe(16000);
    expect(() => new EnergyVoiceActivity(44100 as 8000)).toThrow('8000 or 16000 Hz');
  });
});
