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

/** Cuts µ-law audio into 160-byte frames, the last one padded with µ-law silence. */
export function frames(audio: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < audio.length; i += FRAME_BYTES) {
    const chunk = audio.subarray(i, i + FRAME_BYTES);
    out.push(
      chunk.length === FRAME_BYTES
        ? chunk
        : Buffer.concat([chunk, Buffer.alloc(FRAME_BYTES - chunk.length, 0xff)]),
    );
  }
  return out;
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
