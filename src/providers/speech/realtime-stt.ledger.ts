/**
 * The transcript of one stream laid on its audio: positions are samples of 24 kHz audio since the stream began.
 * The service cuts the audio into items (at our commits, or at its own pauses with server VAD) and transcribes
 * each; our commits cut it into segments, each answered once with the words of its items.
 */
export interface Item {
  id?: string;
  /** Where its audio ends; unknown until the service commits it. */
  end?: number;
  text: string;
  done: boolean;
  failed?: string;
}

export interface Segment {
  start: number;
  end: number;
  /** The service has cut the audio at `end` (or had nothing to cut). */
  acked: boolean;
  /** The words already given out as deltas (kept across reconnects so none is given twice). */
  shown: string;
  resolve: (text: string) => void;
  reject: (err: Error) => void;
  timer?: NodeJS.Timeout;
}

/** Words put end to end: each trimmed, the empty ones left out. */
export const joinWords = (texts: string[]): string =>
  texts
    .map((t) => t.trim())
    .filter(Boolean)
    .join(' ');

/** Where an item belongs: a committed segment, the open one (`null`), or none any more (`undefined`). */
type Place = Segment | null | undefined;

export class Ledger {
  items: Item[] = [];
  /** Committed segments waiting for their words, oldest first. */
  readonly closing: Segment[] = [];
  /** Where the open segment (the audio since the last commit) starts. */
  openStart = 0;
  /** The words of the open segment already given out. */
  openShown = '';

  /** Closes the open segment at `end`. */
  close(end: number, settle: Pick<Segment, 'resolve' | 'reject'>): Segment {
    const segment: Segment = {
      start: this.openStart,
      end,
      acked: end === this.openStart,
      shown: this.openShown,
      ...settle,
    };
    this.openStart = end;
    this.openShown = '';
    this.closing.push(segment);
    return segment;
  }

  /**
   * The items not cut yet, in the order the service first spoke of them, belong to the segments not cut yet, one
   * each in order, the rest to the open segment: a service names a new item for the audio after each cut.
   */
  placeOf(item: Item): Place {
    if (item.end === undefined) {
      const k = this.items.filter((i) => i.end === undefined).indexOf(item);
      return this.closing.filter((s) => !s.acked)[k] ?? null;
    }
    const segment = this.closing.find((s) => item.end! > s.start && item.end! <= s.end);
    if (segment) return segment;
    return item.end > this.openStart ? null : undefined;
  }

  /** The words heard so far of a segment (null: the open one). */
  heard(segment: Segment | null): string {
    return joinWords(this.items.filter((i) => this.placeOf(i) === segment).map((i) => i.text));
  }

  /** The item a server event names, made when new (not yet cut, at the end). */
  item(id: string | undefined): Item {
    const found =
      id === undefined
        ? this.items.find((i) => i.id === undefined && !i.done)
        : this.items.find((i) => i.id === id);
    if (found) return found;
    const made: Item = { id, text: '', done: false };
    this.items.push(made);
    return made;
  }

  /** The service cut an item at `end`: a known one, else the oldest not cut without a name, else a new one. */
  cut(id: string | undefined, end: number): void {
    const item =
      (id !== undefined && this.items.find((i) => i.id === id)) ||
      this.items.find((i) => i.end === undefined && i.id === undefined) ||
      this.item(id);
    item.id ??= id;
    item.end = end;
    // Cut items in audio order, those not cut yet after them.
    this.items.sort((a, b) => (a.end ?? Infinity) - (b.end ?? Infinity));
  }

  /**
   * The first segments whose words are all in, in order, taken off `closing`: a segment is complete when its end
   * is cut and every item up to it is transcribed. Items of no segment any more are forgotten.
   */
  takeComplete(): Array<{ segment: Segment; text: string; failed?: string }> {
    const out: Array<{ segment: Segment; text: string; failed?: string }> = [];
    while (this.closing.length) {
      const s = this.closing[0];
      if (!s.acked) break;
      const mine = this.items.filter((i) => this.placeOf(i) === s);
      if (mine.some((i) => !i.done)) break;
      this.closing.shift();
      out.push({
        segment: s,
        text: joinWords(mine.map((i) => i.text)),
        failed: mine.find((i) => i.failed)?.failed,
      });
    }
    this.items = this.items.filter((i) => this.placeOf(i) !== undefined);
    return out;
  }

  /** Gives up on a segment (timed out): its items go with it. */
  drop(segment: Segment): void {
    const gone = this.items.filter((i) => this.placeOf(i) === segment);
    this.items = this.items.filter((i) => !gone.includes(i));
    this.closing.splice(this.closing.indexOf(segment), 1);
  }

  /**
   * Where audio must be sent again from after a reconnect: the first unanswered segment's start, past the items
   * already transcribed in a row. The items after it are forgotten (their audio is transcribed again), and the
   * segments after it are to be committed again.
   */
  resumeAt(): number {
    let at = this.closing[0]?.start ?? this.openStart;
    for (const i of this.items) {
      if (i.end === undefined || i.end <= at) continue;
      if (!i.done || i.failed) break;
      at = i.end;
    }
    this.items = this.items.filter((i) => i.done && !i.failed && i.end !== undefined && i.end <= at);
    // A new connection may name its items as the old one did.
    for (const i of this.items) delete i.id;
    for (const s of this.closing) s.acked = s.end <= at;
    return at;
  }
}
