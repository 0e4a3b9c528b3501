import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { wavHeader, wavLayout, wavSeconds } from '@/common/audio/wav';
import { cutWav, framesPerChunk } from './wav-chunks';

const layout = { format: 1, channels: 1, sampleRate: 8000, bitsPerSample: 16, blockAlign: 2 };

function wav(seconds: number): Buffer {
  const data = Buffer.alloc(seconds * 8000 * 2);
  for (let i = 0; i < data.length; i += 2) data.writeUInt16LE((i / 2) & 0xffff, i);
  return Buffer.concat([wavHeader({ ...layout, dataOffset: 44, dataBytes: data.length }, data.length), data]);
}

describe('WAV chunks', () => {
  it('reads the PCM layout, and refuses what is not RIFF/WAVE PCM', () => {
    const w = wav(3);
    const l = wavLayout(w, w.length)!;
    expect(l).toMatchObject({ ...layout, dataOffset: 44, dataBytes: 48000 });
    expect(wavSeconds(l)).toBe(3);
    expect(wavLayout(Buffer.from('ID3\x03 not a wav'), 20)).toBeNull();
    const alaw = Buffer.from(w);
    alaw.writeUInt16LE(6, 20);
    expect(wavLayout(alaw, alaw.length)).toBeNull();
  });

  it('takes a streamed size (0xffffffff) as running to the end of the file', () => {
    const w = wav(1);
    w.writeUInt32LE(0xffffffff, 40);
    expect(wavLayout(w, w.length)!.dataBytes).toBe(16000);
  });

  it('cuts at the smaller of the byte and the time limit, whole frames, with start offsets', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wav-'));
    const file = path.join(dir, 'a.wav');
    const w = wav(5);
    fs.writeFileSync(file, w);
    const l = wavLayout(w, w.length)!;
    expect(framesPerChunk(l, 44 + 2 * 8000 * 10, 2)).toBe(16000);
    const chunks = await cutWav(file, l, 44 + 2 * 8000 * 10, 2);
    expect(chunks.map((c) => c.offset)).toEqual([0, 2, 4]);
    const last = fs.readFileSync(chunks[2].file);
    expect(wavLayout(last, last.length)!.dataBytes).toBe(16000);
    // The samples continue where the previous chunk stopped.
    expect(last.readUInt16LE(44)).toBe((4 * 8000) & 0xffff);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
