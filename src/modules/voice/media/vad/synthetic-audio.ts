/** Generated audio for the detector's specs and bench: deterministic, nothing downloaded. */

/** White noise of that peak amplitude, the same for the same seed. */
export function whiteNoise(length: number, amplitude: number, seed = 1): Int16Array {
  let s = seed;
  const out = new Int16Array(length);
  for (let i = 0; i < length; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    out[i] = Math.round(((s / 0x7fffffff) * 2 - 1) * amplitude);
  }
  return out;
}

/** A sine of that amplitude and frequency, `offset` samples into it. */
export function sine(
  length: number,
  amplitude: number,
  hz: number,
  sampleRate: number,
  offset = 0,
): Int16Array {
  return Int16Array.from({ length }, (_, i) =>
    Math.round(amplitude * Math.sin((2 * Math.PI * hz * (offset + i)) / sampleRate)),
  );
}

/** The audio cut into consecutive frames of `size` samples (a shorter last one dropped). */
export function framesOf(samples: Int16Array, size: number): Int16Array[] {
  const out: Int16Array[] = [];
  for (let i = 0; i + size <= samples.length; i += size) out.push(samples.subarray(i, i + size));
  return out;
}
