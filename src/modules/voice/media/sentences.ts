/**
 * Where a phrase may end, each seen only once the character after it arrived (so "1," of "1,000" and "10:" of
 * "10:30" are never taken for one): a sentence end (`.` `!` `?` `…`, closing quotes or brackets, then a space), a
 * line break, or a clause end (`,` `;` `:` before a space, a spaced hyphen or a dash before a space). A sentence end
 * after a word of letters is taken as it arrives (`ENDS_NOW`): no number or time can go on from there.
 */
const BOUNDARY = /([.!?…]+)["'”’)\]]*(?=\s)|\n+|[,;:](?=\s)|\s-{1,2}(?=\s)|[–—](?=\s)/g;
/** The text so far ends a sentence after a word of two letters or more ("you."), with nothing after it yet. */
const ENDS_NOW = /(?:^|\s)["'“‘([]*(\p{L}{2,})([.!?])$/u;
/** A sentence shorter than this waits for the next one ("Hi.", "1."): fewer, more natural synthesis calls. */
const MIN_CHARS = 12;
/** The reply's first phrase may end at a clause end after this many words, so speech starts early. */
export const FIRST_CLAUSE_WORDS = 4;
/** Later phrases end at sentence ends, or at a clause end once this long. */
export const LONG_CLAUSE_WORDS = 20;

/** Words whose period never ends a sentence: titles and Latin abbreviations. */
const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'sr',
  'jr',
  'st',
  'mt',
  'vs',
  'e.g',
  'i.e',
  'cf',
  'approx',
  'fig',
]);
/** Words whose period ends a sentence only when a capital follows ("at 9 a.m. on Monday", "at 9 a.m. See you"). */
const MAYBE_ABBREVIATIONS = new Set(['a.m', 'p.m', 'etc', 'inc', 'ltd', 'co', 'corp']);

export interface SplitterOptions {
  /** false: every phrase ends at a sentence end only (a whole message read out, where nothing is waiting). */
  clauses?: boolean;
}

type Cut = 'sentence' | 'clause' | 'none' | 'wait';

/**
 * Cuts a streamed reply into phrases, each synthesised as soon as it is complete: the first at a clause end after
 * FIRST_CLAUSE_WORDS words (or a sentence end), so speech starts early; later ones at sentence ends, or at a clause
 * end past LONG_CLAUSE_WORDS words, so the prosody stays whole. Numbers ("1,000", "3.5"), times ("10:30") and
 * abbreviations ("Dr.", "e.g.") are never cut.
 */
export class SentenceSplitter {
  private buffer = '';
  private first = true;

  constructor(private readonly options: SplitterOptions = {}) {}

  /** Adds streamed text; answers the phrases it completed. */
  push(delta: string): string[] {
    this.buffer += delta;
    const out: string[] = [];
    let start = 0;
    BOUNDARY.lastIndex = 0;
    for (let m = BOUNDARY.exec(this.buffer); m; m = BOUNDARY.exec(this.buffer)) {
      const end = m.index + m[0].length;
      const cut = this.kind(m, start, end);
      if (cut === 'wait') break;
      if (cut === 'none') continue;
      const phrase = this.buffer.slice(start, end).trim();
      if (!this.long(cut, phrase)) continue;
      out.push(phrase);
      start = end;
      this.first = false;
    }
    this.buffer = this.buffer.slice(start);
    const now = ENDS_NOW.exec(this.buffer);
    if (now && this.endsNow(now[1].toLowerCase(), now[2]) && closed(this.buffer)) {
      const phrase = this.buffer.trim();
      if (phrase.length >= MIN_CHARS) {
        out.push(phrase);
        this.buffer = '';
        this.first = false;
      }
    }
    return out;
  }

  /** A `.` after an abbreviation, or one that may be ("a.m", "etc"), waits for what follows; `!` `?` never do. */
  private endsNow(word: string, mark: string): boolean {
    return mark !== '.' || (!ABBREVIATIONS.has(word) && !MAYBE_ABBREVIATIONS.has(word));
  }

  /** What is left at the end of the reply. */
  flush(): string[] {
    const s = this.buffer.trim();
    this.buffer = '';
    this.first = true;
    return s ? [s] : [];
  }

  private kind(m: RegExpExecArray, start: number, end: number): Cut {
    const text = m[0];
    if (text.startsWith('\n')) return 'sentence';
    const word = wordBefore(this.buffer.slice(start, m.index)).toLowerCase();
    if (m[1] === undefined) {
      if (this.options.clauses === false) return 'none';
      // "e.g., apples": the comma belongs to the abbreviation.
      return word.endsWith('.') && ABBREVIATIONS.has(word.slice(0, -1)) ? 'none' : 'clause';
    }
    if (m[1] !== '.') return 'sentence';
    // A single letter is an initial ("J. Smith").
    if (ABBREVIATIONS.has(word) || /^\p{L}$/u.test(word)) return 'none';
    if (!MAYBE_ABBREVIATIONS.has(word)) return 'sentence';
    const next = /^\s*(\S)/.exec(this.buffer.slice(end));
    if (!next) return 'wait';
    return /\p{Lu}/u.test(next[1]) ? 'sentence' : 'none';
  }

  private long(cut: Cut, phrase: string): boolean {
    if (cut === 'sentence') return phrase.length >= MIN_CHARS;
    const words = phrase.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
    return words >= (this.first ? FIRST_CLAUSE_WORDS : LONG_CLAUSE_WORDS);
  }
}

/** No quote or bracket left open (a closing one may still follow the sentence end). */
function closed(text: string): boolean {
  const count = (c: string) => text.split(c).length - 1;
  return (
    count('"') % 2 === 0 &&
    count('“') === count('”') &&
    count('(') === count(')') &&
    count('[') === count(']')
  );
}

/** The word just before a boundary, without opening quotes or brackets ("(Dr" is "Dr"). */
function wordBefore(text: string): string {
  const word = /\S+$/.exec(text)?.[0] ?? '';
  return word.replace(/^["'“‘([]+/, '');
}
