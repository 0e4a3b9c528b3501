/**
 * `{{stepN.path}}` references inside step configs: finding, renumbering and rendering them. Pure functions; the
 * flows service applies them inside the transaction that edits the steps.
 */

const REF = /\{\{\s*step(\d+)((?:\.[^{}\s]+)?)\s*\}\}/g;
const WHOLE = /^\{\{\s*step(\d+)((?:\.[^{}\s]+)?)\s*\}\}$/;

export interface FoundReference {
  /** Dotted path of the string inside the config (`body.customer.name`). */
  path: string;
  step: number;
}

/** Every reference in every string of `value`, at any depth, with the path of the string that holds it. */
export function findReferences(value: unknown, prefix = ''): FoundReference[] {
  if (typeof value === 'string') {
    const found: FoundReference[] = [];
    for (const m of value.matchAll(REF)) found.push({ path: prefix, step: Number(m[1]) });
    return found;
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => findReferences(v, join(prefix, String(i))));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => findReferences(v, join(prefix, k)));
  return [];
}

const join = (prefix: string, key: string) => (prefix ? `${prefix}.${key}` : key);

/** A copy of `value` with every `{{stepK.` renumbered by `map` (K unchanged when it answers K). */
export function rewriteReferences<T>(value: T, map: (step: number) => number): T {
  if (typeof value === 'string')
    return value.replace(REF, (whole, n: string) => {
      const to = map(Number(n));
      return to === Number(n) ? whole : whole.replace(/step\d+/, `step${to}`);
    }) as T;
  if (Array.isArray(value)) return value.map((v) => rewriteReferences(v, map)) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewriteReferences(v, map)])) as T;
  return value;
}

/** The value at a dotted path (`contact.tags.0.name`), or undefined. */
export function valueAt(root: unknown, path: string): unknown {
  let cur: unknown = root;
  for (const key of path.split('.').filter(Boolean)) {
    if (cur === null || cur === undefined) return undefined;
    if (Array.isArray(cur)) cur = cur[Number(key)];
    else if (typeof cur === 'object') cur = (cur as Record<string, unknown>)[key];
    else return undefined;
  }
  return cur;
}

export const asText = (v: unknown): string =>
  v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v);

/**
 * Fills references from step outputs (by step number). A string that is exactly one reference takes the value
 * with its type; a reference inside longer text renders as text (objects as JSON, missing values as '').
 */
export function render<T>(value: T, outputs: ReadonlyMap<number, unknown>): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole) return valueAt(outputs.get(Number(whole[1])), whole[2].slice(1)) ?? null;
    return value.replace(REF, (_m, n: string, path: string) =>
      asText(valueAt(outputs.get(Number(n)), path.slice(1))),
    );
  }
  if (Array.isArray(value)) return value.map((v) => render(v, outputs));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, render(v, outputs)]));
  return value;
}

/** True when the string holds a reference (its format is known only at run time). */
export const hasReference = (v: unknown): boolean => typeof v === 'string' && /\{\{\s*step\d+/.test(v);
