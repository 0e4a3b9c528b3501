/** Target size of a retrieval chunk, in characters; long enough for context, short enough to rank well. */
export const CHUNK_SIZE = 1200;

/**
 * Splits text into chunks of at most `size` characters, on paragraph, then sentence, then word boundaries.
 * Works incrementally: `push` text as it arrives and take the finished chunks; `end` gives the rest.
 */
export class Chunker {
  private buffer = '';

  constructor(private readonly size = CHUNK_SIZE) {}

  push(text: string): string[] {
    this.buffer += text;
    const out: string[] = [];
    while (this.buffer.length > this.size * 2) out.push(this.cut());
    return out;
  }

  end(): string[] {
    const out: string[] = [];
    while (this.buffer.trim().length > 0) out.push(this.cut());
    this.buffer = '';
    return out.filter((c) => c.length > 0);
  }

  private cut(): string {
    if (this.buffer.length <= this.size) {
      const all = normalize(this.buffer);
      this.buffer = '';
      return all;
    }
    const window = this.buffer.slice(0, this.size);
    let at = window.lastIndexOf('\n\n');
    if (at < this.size / 3) at = Math.max(window.lastIndexOf('. '), window.lastIndexOf('.\n')) + 1;
    if (at < this.size / 3) at = window.lastIndexOf(' ');
    if (at < this.size / 3) at = this.size;
    const chunk = normalize(this.buffer.slice(0, at));
    this.buffer = this.buffer.slice(at);
    return chunk;
  }
}

function normalize(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\f\v]+/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export function chunkText(text: string, size = CHUNK_SIZE): string[] {
  const c = new Chunker(size);
  return [...c.push(text), ...c.end()].filter((s) => s.length > 0);
}
