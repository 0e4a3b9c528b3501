/** The layout of RIFF/WAVE PCM files: read from a file's first bytes, and the canonical header to write one. */

export interface WavLayout {
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  blockAlign: number;
  format: number;
  dataOffset: number;
  dataBytes: number;
}

/** The PCM layout of a RIFF/WAVE file read from its first bytes, or null when it is not PCM in frames. */
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
