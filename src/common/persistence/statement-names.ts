import { createHash } from 'node:crypto';

/** A hand-written statement becomes a named prepared statement once it has run this many times in the process. */
const NAME_AFTER = 3;
/** At most this many names per process (so per pooled connection): statements built with varying text stay unnamed. */
const MAX_NAMED = 300;
const MAX_TEXT = 16_384;
/** Texts counted before naming; cleared when it grows past this (the names already given stay). */
const MAX_COUNTED = 5_000;

const counted = new Map<string, number>();
const named = new Map<string, string>();

/**
 * The name to prepare a hand-written statement under, or null to send it unnamed. PostgreSQL then parses and
 * analyses a statement run on every request once per connection instead of on every run (and may keep its plan):
 * for the turn's statements that was about a third of the database's CPU. Statements whose text varies (a VALUES
 * list per row count) are named only while they repeat, and never past MAX_NAMED.
 */
export function statementName(text: string): string | null {
  const known = named.get(text);
  if (known) return known;
  // A prepared statement holds one command: a text with a semicolon inside (several commands) stays unnamed.
  if (text.length > MAX_TEXT || named.size >= MAX_NAMED || text.trim().replace(/;$/, '').includes(';'))
    return null;
  const runs = (counted.get(text) ?? 0) + 1;
  if (runs < NAME_AFTER) {
    if (counted.size >= MAX_COUNTED) counted.clear();
    counted.set(text, runs);
    return null;
  }
  counted.delete(text);
  const name = `cap_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
  named.set(text, name);
  return name;
}

/** How many statements are named so far (for tests). */
export function namedStatementCount(): number {
  return named.size;
}
