const END = /[.!?…]+["')\]]*\s+|\n+/g;
const MIN_CHARS = 12;

/** Cuts a streamed reply at sentence ends, so each sentence can be synthesised as soon as it is complete. */
export class SentenceSplitter {
  private buffer = '';

  /** Adds streamed text; answers the sentences it completed. */
  push(delta: string): string[] {
    this.buffer += delta;
    const out: string[] = [];
    let start = 0;
    END.lastIndex = 0;
    for (let m = END.exec(this.buffer); m; m = END.exec(this.buffer)) {
      const end = m.index + m[0].length;
      // Very short pieces ("Hi.", "1.") wait for the next sentence: fewer, more natural synthesis calls.
      if (end - start < MIN_CHARS) continue;
      const s = this.buffer.slice(start, end).trim();
      if (s) out.push(s);
      start = end;
    }
    this.buffer = this.buffer.slice(start);
    return out;
  }

  /** What is left at the end of the reply. */
  flush(): string[] {
    const s = this.buffer.trim();
    this.buffer = '';
    return s ? [s] : [];
  }
}
