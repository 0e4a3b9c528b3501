import * as fsp from 'node:fs/promises';

/** The largest file the transcription service takes in one request. */
export const STT_MAX_BYTES = 25 * 1024 * 1024;
/** The longest stretch of audio sent in one request when a file is cut. */
export const CHUNK_MAX_SECONDS = 600;

export interface WavLayout {
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  blockAlign: number;
  format: number;
  dataOffset: number;
  dataBytes: number;
}

export interface AudioChunk {
  file: string;
  /** Where the chunk starts in the whole audio, in seconds. */
  offset: number;
}

/** The PCM layout of a RIFF/WAVE file read from its first bytes, or null when it is not one this code can cut. */
export function wavLayout(head: Buffer, fileBytes: number): WavLayout | null {
  if (
    head.length < 12 ||
    head.toString('latin1', 0, 4) !== 'RIFF' ||
    head.toString('latin1', 8, 12) !== 'WAVE'
  )
    return null;
  let at = 12;
  let fmt: Omit<WavLayout, 'dataOffset' | 'dataBytes'> | null = null;
  while (at + 8 <= head.length) {
    const id = head.toString('latin1', at, at + 4);
    const size = head.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === 'fmt ' && body + 16 <= head.length) {
      fmt = {
        format: head.readUInt16LE(body),
        channels: head.readUInt16LE(body + 2),
        sampleRate: head.readUInt32LE(body + 4),
        blockAlign: head.readUInt16LE(body + 12),
        bitsPerSample: head.readUInt16LE(body + 14),
      };
    } else if (id === 'data') {
      // PCM (1), IEEE float (3) or WAVE_FORMAT_EXTENSIBLE (0xfffe): frames of `blockAlign` bytes.
      if (!fmt || ![1, 3, 0xfffe].includes(fmt.format) || !fmt.blockAlign || !fmt.sampleRate) return null;
      // A streamed WAV may leave the size unset (0 or 0xffffffff): the data then runs to the end of the file.
      const rest = fileBytes - body;
      const dataBytes = size === 0 || size === 0xffffffff || size > rest ? rest : size;
      return { ...fmt, dataOffset: body, dataBytes: dataBytes - (dataBytes % fmt.blockAlign) };
    }
    at = body + size + (size % 2);
  }
  return null;
}

export const wavSeconds = (l: WavLayout): number => l.dataBytes / (l.blockAlign * l.sampleRate);

/** A 44-byte canonical header for `dataBytes` of audio in the layout's format. */
export function wavHeader(l: WavLayout, dataBytes: number): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(36 + dataBytes, 4);
  h.write('WAVE', 8, 'latin1');
  h.write('fmt ', 12, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(l.format === 0xfffe ? (l.bitsPerSample === 32 ? 3 : 1) : l.format, 20);
  h.writeUInt16LE(l.channels, 22);
  h.writeUInt32LE(l.sampleRate, 24);
  h.writeUInt32LE(l.sampleRate * l.blockAlign, 28);
  h.writeUInt16LE(l.blockAlign, 32);
  h.writeUInt16LE(l.bitsPerSample, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(dataBytes, 40);
  return h;
}

/** Frames per chunk: at most 10 minutes and at most 25 MB with its header. */
export function framesPerChunk(
  l: WavLayout,
  maxBytes = STT_MAX_BYTES,
  maxSeconds = CHUNK_MAX_SECONDS,
): number {
  return Math.max(1, Math.min(Math.floor((maxBytes - 44) / l.blockAlign), l.sampleRate * maxSeconds));
}

/**
 * Cuts a WAV file into WAV files of whole frames (`<file>.partN.wav`), each with its start offset. The audio is
 * read one chunk at a time, never whole.
 */
export async function cutWav(
  file: string,
  l: WavLayout,
  maxBytes = STT_MAX_BYTES,
  maxSeconds = CHUNK_MAX_SECONDS,
): Promise<AudioChunk[]> {
  const frames = framesPerChunk(l, maxBytes, maxSeconds);
  const chunkBytes = frames * l.blockAlign;
  const chunks: AudioChunk[] = [];
  const src = await fsp.open(file, 'r');
  try {
    for (let done = 0, n = 0; done < l.dataBytes; done += chunkBytes, n++) {
      const size = Math.min(chunkBytes, l.dataBytes - done);
      const buf = Buffer.alloc(size);
      await src.read(buf, 0, size, l.dataOffset + done);
      const out = `${file}.part${n}.wav`;
      await fsp.writeFile(out, Buffer.concat([wavHeader(l, size), buf]));
      chunks.push({ file: out, offset: done / l.blockAlign / l.sampleRate });
    }
  } finally {
    await src.close();
  }
  return chunks;
}
