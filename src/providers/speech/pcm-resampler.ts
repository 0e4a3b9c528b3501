/** The rate realtime speech-to-text services take (OpenAI's `audio/pcm`, `pcm16`). */
export const REALTIME_RATE = 24000;

/**
 * 8, 16 or 24 kHz 16-bit samples to 24 kHz little-endian PCM as they stream, by linear interpolation between
 * neighbouring samples (enough for telephone-band speech going up in rate). The position between two input samples
 * is kept in thirds across pushes, so pieces of any length give exactly the output of the whole audio at once; one
 * Buffer is allocated per push.
 */
export class PcmResampler {
  /** Input samples advanced per output sample, in thirds: 1 at 8 kHz, 2 at 16 kHz, 3 at 24 kHz. */
  private readonly step: number;
  private prev: number | null = null;
  /** Where the next output sample lies after `prev`, in thirds of an input sample. */
  private phase = 0;

  constructor(readonly inputRate: 8000 | 16000 | 24000) {
    if (![8000, 16000, 24000].includes(inputRate)) throw new RangeError(`no resampling from ${inputRate} Hz`);
    this.step = inputRate / 8000;
  }

  push(samples: Int16Array): Buffer {
    const out = Buffer.allocUnsafe((Math.ceil((samples.length * 3) / this.step) + 1) * 2);
    let n = 0;
    let prev = this.prev ?? (samples.length ? samples[0] : 0);
    let phase = this.phase;
    for (let i = 0; i < samples.length; i++) {
      const cur = samples[i];
      for (; phase < 3; phase += this.step) {
        out.writeInt16LE(Math.round(prev + ((cur - prev) * phase) / 3), n);
        n += 2;
      }
      phase -= 3;
      prev = cur;
    }
    if (samples.length) this.prev = prev;
    this.phase = phase;
    return out.subarray(0, n);
  }
}

/** Milliseconds of 24 kHz 16-bit PCM in `bytes`. */
export const realtimeMs = (bytes: number): number => bytes / 48;
