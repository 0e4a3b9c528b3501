/** Speech audio as the session plays it: pieces of 24 kHz PCM in order. */

/** The audio of a whole synthesis, as a stream of one piece. */
export async function* whole(audio: Promise<Buffer>): AsyncIterable<Buffer> {
  yield await audio;
}

/**
 * Reads a stream of audio at once into memory (the phrase before it may still be playing) and gives its pieces in
 * order; `arrived` is called with the first piece.
 */
export function prefetch(source: AsyncIterable<Buffer>, arrived: () => void): AsyncIterable<Buffer> {
  const state: { pieces: Buffer[]; done: boolean; error: Error | null; wake: (() => void) | null } = {
    pieces: [],
    done: false,
    error: null,
    wake: null,
  };
  void (async () => {
    let first = true;
    try {
      for await (const piece of source) {
        if (first) arrived();
        first = false;
        state.pieces.push(piece);
        state.wake?.();
      }
    } catch (err) {
      state.error = err instanceof Error ? err : new Error(String(err));
    } finally {
      state.done = true;
      state.wake?.();
    }
  })();
  return {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (state.pieces.length) yield state.pieces.shift()!;
        if (state.done) break;
        await new Promise<void>((r) => (state.wake = r));
        state.wake = null;
      }
      if (state.error) throw state.error;
    },
  };
}
