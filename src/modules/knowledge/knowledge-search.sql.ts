/**
 * The word ranking of knowledge search as one SQL statement (KnowledgeSearchRepository.search runs it).
 */

/**
 * A lexeme as a tsquery operand: quoted, with quotes and backslashes escaped as tsquery input reads them
 * (quote_literal writes E'...' around a backslash, which tsquery does not read).
 */
function tsLexeme(expr: string): string {
  return `('''' || replace(replace(${expr}, '\\', '\\\\'), '''', '''''') || '''')`;
}

/** A word in at most this many passages selects candidates alone; more common words only all together. */
const RARE = 2000;
/** Candidates found by rare words, at most (a bound on the work of one search). */
const MAX_CANDIDATES = 10_000;
/**
 * Passages taken among those that tie (holding all the common words, or any word when nothing else matched):
 * they score alike until the re-ranking, so the scan stops after this many instead of reading thousands.
 */
const TIED = 200;

/**
 * The ranking, in one statement (parameters: workspace, agent, part texts, part weights, phrase text, limit):
 * 1. words: the stemmed words of each part, stop words dropped (english configuration), at their part's weight;
 * 2. terms: each word as it is in the agent's vocabulary or, when absent (a typo), the most similar vocabulary
 *    word by trigrams (words of 4+ letters), with its passage count;
 * 3. weight of a term: part weight x BM25 inverse document frequency, so rare words count more;
 * 4. candidates, through the GIN index: passages holding any rare term (in at most RARE passages), or all of
 *    the commoner ones together; terms in over 20% of passages select nothing (unless only such terms are left);
 *    when that finds nothing, passages holding any of the terms. Each scores the sum of the weights of the
 *    terms it holds (coverage x rarity), the best 100 kept. Only passages found by a rare term are read for
 *    this: those holding all the common terms tie at their sum, so TIED of them are taken as found, which
 *    bounds the work of questions made only of common words;
 * 5. those are re-ranked by BM25 (term weights with saturating term frequency, k1 = 1.2; length normalisation
 *    b = 0.1 only, since a chunk of imported text holds several topics and must not lose to short rows), a
 *    boost for each pair of adjacent question words found adjacent in the passage (phrase), and the cover
 *    density of all terms (proximity, normalised by length).
 */
export const SEARCH_SQL = `
WITH n AS (
  SELECT coalesce(max(passages), 0) AS passages, coalesce(max(avg_length), 1) AS avg_length
  FROM knowledge_index_stats WHERE workspace_id = $1 AND agent_id = $2
), words AS (
  SELECT w.lexeme, max(p.weight) AS weight
  FROM unnest($3::text[], $4::float8[]) AS p(text, weight)
  CROSS JOIN LATERAL unnest(tsvector_to_array(to_tsvector('english', p.text))) AS w(lexeme)
  GROUP BY w.lexeme
), terms AS (
  SELECT coalesce(t.lexeme, fix.lexeme) AS lexeme, max(w.weight) AS weight,
         max(coalesce(t.ndoc, fix.ndoc)) AS ndoc
  FROM words w
  LEFT JOIN knowledge_terms t ON t.workspace_id = $1 AND t.agent_id = $2 AND t.lexeme = w.lexeme
  LEFT JOIN LATERAL (
    SELECT f.lexeme, f.ndoc FROM knowledge_terms f
    WHERE t.lexeme IS NULL AND length(w.lexeme) >= 4
      AND f.workspace_id = $1 AND f.agent_id = $2 AND f.lexeme % w.lexeme
    ORDER BY similarity(f.lexeme, w.lexeme) DESC, f.ndoc DESC
    LIMIT 1
  ) fix ON true
  WHERE coalesce(t.lexeme, fix.lexeme) IS NOT NULL
  GROUP BY 1
), weighted AS (
  SELECT t.lexeme, ${tsLexeme('t.lexeme')}::tsquery AS q, t.ndoc,
         t.weight * ln(1 + (n.passages - t.ndoc + 0.5) / (t.ndoc + 0.5)) AS w
  FROM terms t CROSS JOIN n
), probe_terms AS (
  SELECT x.lexeme, x.ndoc FROM weighted x CROSS JOIN n
  WHERE x.ndoc <= greatest(n.passages * 0.2, 50)
     OR x.lexeme = (SELECT lexeme FROM weighted ORDER BY ndoc, lexeme LIMIT 1)
), probe AS (
  SELECT (SELECT string_agg(${tsLexeme('lexeme')}, ' | ') FROM probe_terms WHERE ndoc <= ${RARE}) AS rare,
         (SELECT string_agg(${tsLexeme('lexeme')}, ' & ') FROM probe_terms WHERE ndoc > ${RARE}) AS common
), rare_found AS MATERIALIZED (
  SELECT i.id, i.tsv
  FROM knowledge_index i CROSS JOIN probe
  WHERE probe.rare IS NOT NULL AND i.workspace_id = $1 AND i.agent_id = $2 AND i.tsv @@ probe.rare::tsquery
  LIMIT ${MAX_CANDIDATES}
), common_found AS MATERIALIZED (
  SELECT i.id
  FROM knowledge_index i CROSS JOIN probe
  WHERE probe.common IS NOT NULL AND i.workspace_id = $1 AND i.agent_id = $2 AND i.tsv @@ probe.common::tsquery
  LIMIT ${TIED}
), fallback AS (
  SELECT i.id
  FROM knowledge_index i
  CROSS JOIN (SELECT string_agg(${tsLexeme('lexeme')}, ' | ')::tsquery AS q FROM probe_terms) f
  WHERE NOT EXISTS (SELECT 1 FROM rare_found) AND NOT EXISTS (SELECT 1 FROM common_found)
    AND i.workspace_id = $1 AND i.agent_id = $2 AND i.tsv @@ f.q
  LIMIT ${TIED}
), everything AS (
  SELECT string_agg(${tsLexeme('lexeme')}, ' | ')::tsquery AS q FROM weighted
), pos AS (
  SELECT u.lexeme, p AS pos
  FROM unnest(to_tsvector('english', $5)) u CROSS JOIN LATERAL unnest(u.positions) AS p
), pairs AS (
  SELECT DISTINCT (${tsLexeme('a.lexeme')} || ' <-> ' || ${tsLexeme('b.lexeme')})::tsquery AS q,
         (wa.w + wb.w) / 2 AS w
  FROM pos a
  JOIN pos b ON b.pos = a.pos + 1
  JOIN weighted wa ON wa.lexeme = a.lexeme
  JOIN weighted wb ON wb.lexeme = b.lexeme
), best AS (
  SELECT c.id, c.coverage FROM (
    SELECT r.id, (SELECT sum(x.w) FROM weighted x WHERE r.tsv @@ x.q) AS coverage FROM rare_found r
    UNION ALL
    SELECT c.id, (SELECT sum(x.w) FROM weighted x JOIN probe_terms p ON p.lexeme = x.lexeme WHERE p.ndoc > ${RARE})
    FROM common_found c WHERE NOT EXISTS (SELECT 1 FROM rare_found r WHERE r.id = c.id)
    UNION ALL
    SELECT f.id, 0 FROM fallback f
  ) c
  ORDER BY c.coverage DESC
  LIMIT 100
), scored AS (
  SELECT b.id, i.tsv, b.coverage FROM best b JOIN knowledge_index i ON i.id = b.id AND i.workspace_id = $1
), ranked AS (
  SELECT s.id,
         (SELECT sum(x.w * (tf.n * 2.2) / (tf.n + 1.2 * (0.9 + 0.1 * length(s.tsv) / n.avg_length)))
          FROM unnest(s.tsv) u
          JOIN weighted x ON x.lexeme = u.lexeme
          CROSS JOIN LATERAL (SELECT coalesce(array_length(u.positions, 1), 1) AS n) tf)
           + coalesce((SELECT sum(p.w) FROM pairs p WHERE s.tsv @@ p.q), 0)
           + ts_rank_cd(s.tsv, everything.q, 1) AS score
  FROM scored s CROSS JOIN everything CROSS JOIN n
  ORDER BY score DESC, s.id
  LIMIT $6
)
SELECT i.id, i.data_source_id, d.name AS data_source_name, d.type AS data_source_type, i.record_id, i.data,
       ts_headline('english', i.content, everything.q,
                   'MaxWords=35, MinWords=15, MaxFragments=2, StartSel=**, StopSel=**') AS snippet,
       r.score
FROM ranked r
JOIN knowledge_index i ON i.id = r.id AND i.workspace_id = $1
JOIN data_sources d ON d.id = i.data_source_id AND d.workspace_id = $1
CROSS JOIN everything
ORDER BY r.score DESC, r.id`;
