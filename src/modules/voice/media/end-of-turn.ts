import { TURN_WORDS, TurnWordLists, UNSPACED } from './turn-words';

/** Why a transcript reads as finished or not (see `turnEnding`). */
export type TurnEndingReason =
  | 'punctuation'
  | 'closer'
  | 'open-word'
  | 'preposition'
  | 'number'
  | 'trailing-off'
  | 'no-punctuation'
  | 'empty';

export interface TurnEnding {
  complete: boolean;
  reason: TurnEndingReason;
}

interface LanguageWords {
  unspaced: boolean;
  open: string[];
  prepositions: string[];
  numbers: Set<string>;
  closers: Set<string>;
  backchannels: string[];
}

const cache = new Map<string, LanguageWords>();
const list = (s: string) => s.split('|').filter(Boolean);

/** The word lists of a language (ISO 639-1); English for a language without lists or none given. */
export function wordsOf(language: string | null | undefined): LanguageWords {
  const code = language && TURN_WORDS[language] ? language : 'en';
  let words = cache.get(code);
  if (!words) {
    const l: TurnWordLists = TURN_WORDS[code];
    words = {
      unspaced: UNSPACED.has(code),
      open: list(l.open),
      prepositions: list(l.prepositions),
      numbers: new Set(list(l.numbers)),
      closers: new Set(list(l.closers)),
      backchannels: list(l.backchannels),
    };
    cache.set(code, words);
  }
  return words;
}

/** The default `ignore_words` of a language: what its listeners say without taking the turn. */
export function defaultBackchannels(language: string | null | undefined): string[] {
  return wordsOf(language).backchannels;
}

const CLOSING = `["'”’»)\\]]*$`;
const TERMINAL = new RegExp(`[.!?。！？]${CLOSING}`, 'u');
const QUESTION = new RegExp(`[?？]${CLOSING}`, 'u');
const TRAILING_OFF = new RegExp(`(\\.\\.|…|[,，、;:–—-])${CLOSING}`, 'u');

/** Lower-case words without punctuation (apostrophes and hyphens inside a word kept). */
function wordsIn(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}'’-]+/gu, ' ')
    .split(/\s+/)
    .map((w) => w.replace(/^['’-]+|['’-]+$/g, '').replace(/’/g, "'"))
    .filter(Boolean);
}

/** Whether the words end with one of the phrases (each one or more words). */
function endsWithPhrase(words: string[], phrases: string[]): boolean {
  return phrases.some((p) => {
    const ws = p.split(' ');
    if (ws.length > words.length) return false;
    return ws.every((w, i) => words[words.length - ws.length + i] === w);
  });
}

const isNumber = (w: string, numbers: Set<string>) => /^\d+$/.test(w) || numbers.has(w);

/**
 * Whether a transcript reads as a finished turn. Not finished: it ends on a word a sentence does not end on (an
 * article, conjunction, possessive or filler; a preposition unless it is a question), on a number being read out
 * (a group of two or more digits, or two number words in a row), or trails off (`...`, a comma); or it has no
 * sentence punctuation and is not a short closing answer ("yes", "no thanks"). Finished: sentence punctuation
 * (`.` `!` `?`) after a word that does not keep it open, or such a closing answer.
 */
export function turnEnding(text: string, language: string | null | undefined): TurnEnding {
  const trimmed = text.trim();
  if (!trimmed) return { complete: false, reason: 'empty' };
  const lang = wordsOf(language);
  const question = QUESTION.test(trimmed);
  if (lang.unspaced) return unspacedEnding(trimmed, lang, question);
  const words = wordsIn(trimmed);
  if (!words.length) return { complete: false, reason: 'empty' };
  const last = words[words.length - 1];
  const before = words[words.length - 2];
  if (/^\d{2,}$/.test(last) || (isNumber(last, lang.numbers) && before && isNumber(before, lang.numbers)))
    return { complete: false, reason: 'number' };
  if (endsWithPhrase(words, lang.open)) return { complete: false, reason: 'open-word' };
  if (!question && endsWithPhrase(words, lang.prepositions))
    return { complete: false, reason: 'preposition' };
  if (TRAILING_OFF.test(trimmed)) return { complete: false, reason: 'trailing-off' };
  if (TERMINAL.test(trimmed)) return { complete: true, reason: 'punctuation' };
  if (lang.closers.has(words.join(' '))) return { complete: true, reason: 'closer' };
  return { complete: false, reason: 'no-punctuation' };
}

function unspacedEnding(text: string, lang: LanguageWords, question: boolean): TurnEnding {
  const bare = text.replace(/[\s\p{P}]+$/gu, '').replace(/\s+/g, '');
  if (!bare) return { complete: false, reason: 'empty' };
  const tail = [...bare].slice(-2);
  if (tail.length === 2 && tail.every((c) => isNumber(c, lang.numbers)))
    return { complete: false, reason: 'number' };
  if (lang.open.some((w) => bare.endsWith(w))) return { complete: false, reason: 'open-word' };
  if (!question && lang.prepositions.some((w) => bare.endsWith(w)))
    return { complete: false, reason: 'preposition' };
  if (TRAILING_OFF.test(text)) return { complete: false, reason: 'trailing-off' };
  if (TERMINAL.test(text)) return { complete: true, reason: 'punctuation' };
  if (lang.closers.has(bare)) return { complete: true, reason: 'closer' };
  return { complete: false, reason: 'no-punctuation' };
}

/** Words for matching backchannels: lower case, hyphens as spaces ("uh-huh" is "uh huh"), no punctuation. */
function plainWords(text: string): string[] {
  return wordsIn(text.replace(/[-‐–]/g, ' '));
}

/**
 * Whether the transcript says only backchannels: every word is covered by the phrases (`ignore`, e.g. "uh huh",
 * "yeah", "i see"), in any order and repeated. False for an empty transcript (nothing was said).
 */
export function onlyBackchannels(
  text: string,
  ignore: string[],
  language: string | null | undefined,
): boolean {
  if (wordsOf(language).unspaced) {
    const bare = text.replace(/[\s\p{P}]+/gu, '');
    const phrases = ignore.map((p) => p.replace(/[\s\p{P}]+/gu, '')).filter(Boolean);
    return (
      bare.length > 0 &&
      covers(
        [...bare],
        phrases.map((p) => [...p]),
      )
    );
  }
  const words = plainWords(text);
  return (
    words.length > 0 &&
    covers(
      words,
      ignore.map(plainWords).filter((p) => p.length > 0),
    )
  );
}

/** Whether `items` can be cut into a sequence of the `pieces` (dynamic programming over the positions). */
function covers(items: string[], pieces: string[][]): boolean {
  const reach = new Array<boolean>(items.length + 1).fill(false);
  reach[0] = true;
  for (let i = 0; i < items.length; i++) {
    if (!reach[i]) continue;
    for (const p of pieces)
      if (p.length <= items.length - i && p.every((w, k) => items[i + k] === w)) reach[i + p.length] = true;
  }
  return reach[items.length];
}
