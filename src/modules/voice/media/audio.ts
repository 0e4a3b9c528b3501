import { mulaw } from 'alawmulaw';

/** Twilio Media Streams: 8 kHz µ-law, 20 ms frames of 160 bytes. */
export const SAMPLE_RATE = 8000;
export const FRAME_MS = 20;
export const FRAME_BYTES = 160;
/** What the TTS answers: 24 kHz 16-bit mono PCM. */
export const TTS_RATE = 24000;

export function decodeMulaw(payload: Buffer): Int16Array {
  return mulaw.decode(new Uint8Array(payload.buffer, payload.byteOffset, payload.length));
}

/** The frame's energy in dBFS (RMS against full scale), -100 for digital silence. */
export function energyDb(samples: Int16Array): number {
  if (!samples.length) return -100;
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += samples[i] * samples[i];
  const rms = Math.sqrt(sum / samples.length) / 32768;
  return rms > 0 ? Math.max(-100, 20 * Math.log10(rms)) : -100;
}

/**
 * 24 kHz 16-bit little-endian PCM to 8 kHz µ-law: each output sample is the mean of three input samples (a box
 * filter against aliasing, enough for speech at telephone bandwidth), then µ-law encoded.
 */
export function pcm24kToMulaw8k(pcm: Buffer): Buffer {
  const inSamples = Math.floor(pcm.length / 2);
  const out = new Int16Array(Math.floor(inSamples / 3));
  for (let i = 0; i < out.length; i++) {
    const j = i * 6;
    out[i] = Math.round((pcm.readInt16LE(j) + pcm.readInt16LE(j + 2) + pcm.readInt16LE(j + 4)) / 3);
  }
  return Buffer.from(mulaw.encode(out));
}

/**
 * 24 kHz 16-bit little-endian PCM to 16 kHz (browser calls): each output sample is the mean of the 1.5 input
 * samples it covers (three in, two out: (2a + b) / 3 and (b + 2c) / 3), the box filter of `pcm24kToMulaw8k`.
 */
export function pcm24kToPcm16k(pcm: Buffer): Buffer {
  const groups = Math.floor(pcm.length / 6);
  const out = Buffer.alloc(groups * 4);
  for (let g = 0; g < groups; g++) {
    const a = pcm.readInt16LE(g * 6);
    const b = pcm.readInt16LE(g * 6 + 2);
    const c = pcm.readInt16LE(g * 6 + 4);
    out.writeInt16LE(Math.round((2 * a + b) / 3), g * 4);
    out.writeInt16LE(Math.round((b + 2 * c) / 3), g * 4 + 2);
  }
  return out;
}

/** 20 ms of 16 kHz 16-bit PCM. */
export const PCM16K_FRAME_BYTES = 640;

/** Cuts audio into frames (160-byte µ-law by default), the last one padded with silence (µ-law 0xff). */
export function frames(audio: Buffer, size = FRAME_BYTES, silence = 0xff): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < audio.length; i += size) {
    const chunk = audio.subarray(i, i + size);
    out.push(
      chunk.length === size ? chunk : Buffer.concat([chunk, Buffer.alloc(size - chunk.length, silence)]),
    );
  }
  return out;
}

/** What streamed speech becomes: `mulaw-8k` (telephony, 160-byte frames) or `pcm-16k` (browser, 640-byte frames). */
export type FrameFormat = 'mulaw-8k' | 'pcm-16k';

const FORMATS: Record<FrameFormat, { convert: (pcm: Buffer) => Buffer; size: number; silence: number }> = {
  'mulaw-8k': { convert: pcm24kToMulaw8k, size: FRAME_BYTES, silence: 0xff },
  'pcm-16k': { convert: pcm24kToPcm16k, size: PCM16K_FRAME_BYTES, silence: 0 },
};

/** Three 24 kHz samples: both conversions work on whole groups of them. */
const GROUP_BYTES = 6;

/**
 * Streamed 24 kHz 16-bit PCM (pieces of any length, even split inside a sample) to 20 ms frames as they complete;
 * what is left over waits for the next piece. The frames of all `push`es and the `flush` are exactly those of the
 * whole audio converted at once (`frames(pcm24kToMulaw8k(all))`, or `pcm24kToPcm16k` in 640-byte frames).
 */
export class FrameStream {
  private input = Buffer.alloc(0);
  private output = Buffer.alloc(0);
  private readonly spec: (typeof FORMATS)[FrameFormat];

  constructor(readonly format: FrameFormat = 'mulaw-8k') {
    this.spec = FORMATS[format];
  }

  /** Adds a piece of 24 kHz PCM; answers the frames it completed. */
  push(pcm: Buffer): Buffer[] {
    const input = this.input.length ? Buffer.concat([this.input, pcm]) : pcm;
    const whole = input.length - (input.length % GROUP_BYTES);
    this.input = Buffer.from(input.subarray(whole));
    if (!whole) return [];
    const converted = this.spec.convert(input.subarray(0, whole));
    const output = this.output.length ? Buffer.concat([this.output, converted]) : converted;
    const full = output.length - (output.length % this.spec.size);
    this.output = Buffer.from(output.subarray(full));
    return frames(output.subarray(0, full), this.spec.size);
  }

  /** The end of the audio: the last frame, padded with silence (less than three samples left over are dropped). */
  flush(): Buffer[] {
    const out = frames(this.output, this.spec.size, this.spec.silence);
    this.input = Buffer.alloc(0);
    this.output = Buffer.alloc(0);
    return out;
  }
}

/** A WAV file (16-bit mono PCM) of the samples, for the STT service. */
export function wav(samples: Int16Array, rate = SAMPLE_RATE): Buffer {
  const data = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}
