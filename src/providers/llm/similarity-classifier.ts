import type { IntentCandidate, IntentScore } from './language-model.port';

/**
 * A candidate matches when the utterance's best cosine similarity to one of its example phrases reaches this.
 * Character trigrams make 0.5 roughly "shares most of its words with an example" (tolerant of plurals,
 * typos and word order); identical phrasing scores 1, unrelated sentences stay well under 0.3.
 */
export const LOCAL_MATCH_THRESHOLD = 0.5;

const N = 3;

/** Lower case, accents removed, everything but letters and digits turned into single spaces. */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Character trigrams of each word padded with spaces, counted. */
export function charNgrams(text: string): Map<string, number> {
  const grams = new Map<string, number>();
  for (const word of normalizeText(text).split(' ')) {
    if (!word) continue;
    const padded = ` ${word} `;
    for (let i = 0; i + N <= padded.length; i++) {
      const g = padded.slice(i, i + N);
      grams.set(g, (grams.get(g) ?? 0) + 1);
    }
  }
  return grams;
}

type Vector = Map<string, number>;

function weigh(tf: Map<string, number>, idf: Map<string, number>): Vector {
  const v: Vector = new Map();
  for (const [g, n] of tf) v.set(g, (1 + Math.log(n)) * (idf.get(g) ?? 1));
  return v;
}

function cosine(a: Vector, b: Vector): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [g, w] of a) {
    na += w * w;
    const o = b.get(g);
    if (o !== undefined) dot += w * o;
  }
  for (const w of b.values()) nb += w * w;
  if (!na || !nb) return 0;
  return Math.min(1, dot / Math.sqrt(na * nb));
}

/**
 * TF-IDF over character trigrams, cosine similarity, best example wins. The IDF is computed over the
 * utterance and every example of every candidate, so n-grams shared by all candidates weigh less.
 */
export function classifyBySimilarity(
  utterance: string,
  candidates: IntentCandidate[],
  threshold = LOCAL_MATCH_THRESHOLD,
): IntentScore[] {
  const docs: Map<string, number>[] = [charNgrams(utterance)];
  const perCandidate = candidates.map((c) => c.examples.map((e) => charNgrams(e)));
  for (const list of perCandidate) docs.push(...list);
  const df = new Map<string, number>();
  for (const d of docs) for (const g of d.keys()) df.set(g, (df.get(g) ?? 0) + 1);
  const idf = new Map<string, number>();
  for (const [g, n] of df) idf.set(g, Math.log((1 + docs.length) / (1 + n)) + 1);
  const u = weigh(docs[0], idf);
  return candidates.map((c, i) => {
    let best = 0;
    for (const ex of perCandidate[i]) best = Math.max(best, cosine(u, weigh(ex, idf)));
    const score = Math.round(best * 1000) / 1000;
    return { id: c.id, score, matched: score >= threshold };
  });
}
