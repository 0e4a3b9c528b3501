import { wavLayout } from '@/common/audio/wav';

/** A 16-bit mono PCM WAV file's sample rate and samples (audio.ts `wav` writes such files). */
export function readWav(file: Buffer): { sampleRate: number; samples: Int16Array } {
  const layout = wavLayout(file, file.length);
  if (!layout || layout.format !== 1 || layout.channels !== 1 || layout.bitsPerSample !== 16)
    throw new Error('not a 16-bit mono PCM WAV file');
  const samples = new Int16Array(layout.dataBytes / 2);
  for (let i = 0; i < samples.length; i++) samples[i] = file.readInt16LE(layout.dataOffset + 2 * i);
  return { sampleRate: layout.sampleRate, samples };
}
