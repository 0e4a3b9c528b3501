import {
  FRAME_BYTES,
  frames,
  FrameStream,
  PCM16K_FRAME_BYTES,
  pcm24kToMulaw8k,
  pcm24kToPcm16k,
} from './audio';

/** `ms` of a 24 kHz 16-bit tone with some noise, so every sample differs. */
function speechLike(ms: number): Buffer {
  const n = Math.round(24 * ms);
  const out = Buffer.alloc(n * 2);
  let seed = 7;
  for (let i = 0; i < n; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const noise = (seed % 2001) - 1000;
    out.writeInt16LE(Math.round(9000 * Math.sin((2 * Math.PI * 300 * i) / 24000)) + noise, i * 2);
  }
  return out;
}

/** Cuts `buf` into pieces of the given sizes, in turn, most of them odd (a sample split across two). */
function pieces(buf: Buffer, sizes: number[]): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0, k = 0; i < buf.length; k++) {
    const size = sizes[k % sizes.length];
    out.push(buf.subarray(i, i + size));
    i += size;
  }
  return out;
}

describe('FrameStream', () => {
  const sizes = [1, 7, 333, 2, 5, 1001, 4800, 3, 0, 639];

  it.each([101, 250, 1003])('gives the µ-law frames of the whole %i ms converted at once', (ms) => {
    const pcm = Buffer.concat([speechLike(ms), Buffer.from([0x12])]); // and a last odd byte
    const stream = new FrameStream();
    const out = [...pieces(pcm, sizes).flatMap((p) => stream.push(p)), ...stream.flush()];
    expect(out.every((f) => f.length === FRAME_BYTES)).toBe(true);
    expect(Buffer.concat(out).equals(Buffer.concat(frames(pcm24kToMulaw8k(pcm))))).toBe(true);
  });

  it.each([101, 250, 1003])('gives the 16 kHz PCM frames of the whole %i ms converted at once', (ms) => {
    const pcm = speechLike(ms);
    const stream = new FrameStream('pcm-16k');
    const out = [...pieces(pcm, sizes).flatMap((p) => stream.push(p)), ...stream.flush()];
    expect(out.every((f) => f.length === PCM16K_FRAME_BYTES)).toBe(true);
    expect(Buffer.concat(out).equals(Buffer.concat(frames(pcm24kToPcm16k(pcm), PCM16K_FRAME_BYTES, 0)))).toBe(
      true,
    );
  });

  it('answers each frame as soon as its audio arrived, the partial one at the flush', () => {
    const stream = new FrameStream();
    expect(stream.push(speechLike(19))).toEqual([]);
    expect(stream.push(speechLike(2))).toHaveLength(1); // 21 ms
    expect(stream.push(speechLike(40))).toHaveLength(2); // 61 ms
    const last = stream.flush();
    expect(last).toHaveLength(1);
    expect(last[0].subarray(8)).toEqual(Buffer.alloc(FRAME_BYTES - 8, 0xff)); // 1 ms of audio, then silence
    expect(stream.flush()).toEqual([]);
  });
});

describe('pcm24kToPcm16k', () => {
  it('keeps two samples of every three, each the mean of the input it covers', () => {
    const pcm = Buffer.alloc(14);
    [300, 600, 900, -3000, 0, 3000, 5].forEach((v, i) => pcm.writeInt16LE(v, i * 2));
    const out = pcm24kToPcm16k(pcm);
    expect([0, 1, 2, 3].map((i) => out.readInt16LE(i * 2))).toEqual([400, 800, -2000, 2000]);
  });
});
