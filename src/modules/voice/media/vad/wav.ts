/** A 16-bit mono PCM WAV file's sample rate and samples (audio.ts `wav` writes such files). */
export function readWav(file: Buffer): { sampleRate: number; samples: Int16Array } {
  if (file.length < 12 || file.toString('ascii', 0, 4) !== 'RIFF' || file.toString('ascii', 8, 12) !== 'WAVE')
    throw new Error('not a WAV file');
  let sampleRate = 0;
  for (let at = 12; at + 8 <= file.length;) {
    const id = file.toString('ascii', at, at + 4);
    const size = file.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === 'fmt ') {
      const format = file.readUInt16LE(body);
      const channels = file.readUInt16LE(body + 2);
      const bits = file.readUInt16LE(body + 14);
      if (format !== 1 || channels !== 1 || bits !== 16)
        throw new Error(`WAV must be 16-bit mono PCM (format ${format}, ${channels} channels, ${bits} bits)`);
      sampleRate = file.readUInt32LE(body + 4);
    } else if (id === 'data') {
      if (!sampleRate) throw new Error('WAV data before its format');
      const bytes = Math.min(size, file.length - body) & ~1;
      const samples = new Int16Array(bytes / 2);
      for (let i = 0; i < samples.length; i++) samples[i] = file.readInt16LE(body + 2 * i);
      return { sampleRate, samples };
    }
    at = body + size + (size & 1);
  }
  throw new Error('WAV without data');
}
