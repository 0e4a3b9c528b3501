import { mulaw } from 'alawmulaw';
import { decodeMulaw, energyDb, frames, pcm24kToMulaw8k } from './audio';
import { SentenceSplitter } from './sentences';
import { TurnDetector } from './turn-detector';

const frame = (amplitude: number, index = 0) => {
  const s = new Int16Array(160);
  for (let i = 0; i < 160; i++)
    s[i] = Math.round(amplitude * Math.sin((2 * Math.PI * 440 * (index * 160 + i)) / 8000));
  return s;
};
const feed = (d: TurnDetector, amplitude: number, count: number) =>
  Array.from({ length: count }, (_, i) => d.push(frame(amplitude, i))).filter(Boolean);

const energy = (endSilenceMs: number, pauseMs?: number, hushMs?: number) =>
  new TurnDetector({ endSilenceMs, pauseMs, hushMs, vad: { engine: 'energy' } });

describe('TurnDetector', () => {
  it('starts a turn after 60 ms of speech and ends it after the end-of-turn silence', () => {
    const d = energy(300);
    expect(feed(d, 20, 50)).toEqual([]);
    expect(feed(d, 8000, 20)).toEqual([{ type: 'speech-start' }]);
    const events = feed(d, 20, 15);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'turn', speechMs: 400 });
  });

  it('drops utterances under 200 ms', () => {
    const d = energy(300);
    feed(d, 20, 50);
    expect(feed(d, 8000, 5)).toEqual([{ type: 'speech-start' }]);
    expect(feed(d, 20, 20)).toEqual([]);
  });

  it('the noise floor adapts: steady loud noise is not speech for long', () => {
    const d = energy(300);
    feed(d, 3000, 120);
    expect(feed(d, 3000, 50)).toEqual([]);
  });

  it('speech quieter than the caller’s own voice (background) makes no utterance', () => {
    const d = energy(300);
    feed(d, 5, 50);
    // About -40 dBFS: speech to the detector, but never as loud as a caller.
    const events = feed(d, 300, 40).concat(feed(d, 5, 30));
    expect(events.filter((e) => e!.type !== 'speech-start')).toEqual([]);
  });

  it('reports a pause within the utterance, the caller going on, and the end of the turn', () => {
    const d = energy(1000, 200);
    feed(d, 20, 50);
    expect(feed(d, 8000, 20)).toEqual([{ type: 'speech-start' }]);
    const paused = feed(d, 20, 15);
    expect(paused).toEqual([expect.objectContaining({ type: 'pause' })]);
    expect(d.silenceMs).toBe(300);
    expect(feed(d, 8000, 10)).toEqual([{ type: 'resume' }]);
    const end = feed(d, 20, 60);
    expect(end.map((e) => e!.type)).toEqual(['pause', 'turn']);
    expect(end[1]).toMatchObject({ speechMs: 600 });
  });

  it('reports a hush at the first silent frames, once, before the pause; speech after it is a resume', () => {
    const d = energy(1000, 60, 20);
    feed(d, 20, 50);
    feed(d, 8000, 20);
    expect(feed(d, 20, 1)).toEqual([expect.objectContaining({ type: 'hush' })]);
    expect(feed(d, 20, 2).map((e) => e!.type)).toEqual(['pause']);
    expect(feed(d, 8000, 3)).toEqual([{ type: 'resume' }]);
    expect(feed(d, 20, 1)).toEqual([expect.objectContaining({ type: 'hush' })]);
    expect(feed(d, 8000, 3)).toEqual([{ type: 'resume' }]);
  });

  it('cut ends the utterance: what follows is another one', () => {
    const d = energy(1000, 200);
    feed(d, 20, 50);
    feed(d, 8000, 20);
    feed(d, 20, 15);
    d.cut();
    expect(d.hearing).toBe(false);
    expect(feed(d, 20, 60)).toEqual([]);
    expect(feed(d, 8000, 5)).toEqual([{ type: 'speech-start' }]);
  });
});

describe('audio', () => {
  it('energy of digital silence is -100 dBFS and of a full-scale tone about -3 dBFS', () => {
    expect(energyDb(new Int16Array(160))).toBe(-100);
    expect(energyDb(frame(32767))).toBeCloseTo(-3, 0);
  });

  it('24 kHz PCM becomes 8 kHz µ-law in 160-byte frames, the last padded with silence', () => {
    const pcm = Buffer.alloc(24000 * 2 * 0.05); // 50 ms
    const out = frames(pcm24kToMulaw8k(pcm));
    expect(out.map((f) => f.length)).toEqual([160, 160, 160]);
    expect(decodeMulaw(out[0]).every((s) => Math.abs(s) < 8)).toBe(true);
    expect(mulaw.decode(new Uint8Array(out[2].subarray(80)))[0]).toBe(mulaw.decodeSample(0xff));
  });
});

describe('SentenceSplitter', () => {
  it('cuts streamed text at sentence ends and keeps the rest for the flush', () => {
    const s = new SentenceSplitter();
    expect(s.push('Sure, I can help with ')).toEqual([]);
    expect(s.push('that today. What is your ')).toEqual(['Sure, I can help with that today.']);
    expect(s.push('order number')).toEqual([]);
    expect(s.flush()).toEqual(['What is your order number']);
  });

  it('keeps very short pieces with the next sentence', () => {
    const s = new SentenceSplitter();
    expect(s.push('Hi. How can I help you today? ')).toEqual(['Hi. How can I help you today?']);
  });
});
