import * as fsp from 'node:fs/promises';
import { WavLayout, wavHeader } from '@/common/audio/wav';

/** The largest file the transcription service takes in one request. */
export const STT_MAX_BYTES = 25 * 1024 * 1024;
/** The longest stretch of audio sent in one request when a file is cut. */
export const CHUNK_MAX_SECONDS = 600;

export interface AudioChunk {
  file: string;
  /** Where the chunk starts in the whole audio, in seconds. */
  offset: number;
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
