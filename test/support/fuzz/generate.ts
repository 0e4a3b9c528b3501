import type { Schema } from './schemas';

/** A seeded generator (mulberry32): the same seed gives the same requests on every run. */
export class Random {
  constructor(private state: number) {}

  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(max: number): number {
    return Math.floor(this.next() * max);
  }

  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)];
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  uuid(): string {
    const hex = Array.from({ length: 32 }, () => this.int(16).toString(16));
    hex[12] = '4';
    hex[16] = ((this.int(4) + 8) as number).toString(16);
    const s = hex.join('');
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
  }
}

/** A value nested `depth` levels deep. */
export function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

/** The same as raw JSON text, for depths a JSON serializer would recurse through. */
export function nestedText(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

/** Values of the wrong type, out of range, or hostile as text. */
export const HOSTILE_VALUES: readonly unknown[] = [
  {},
  [],
  [[]],
  '',
  ' ',
  0,
  -1,
  1.5,
  1e308,
  -1e308,
  2 ** 53 + 1,
  true,
  false,
  null,
  'x'.repeat(100_000),
  'a\u0000b',
  '\ud800',
  '\u202eevil',
  '𝕏🙂\u200b',
  'NaN',
  '1e400',
  '2026-13-45T99:99:99Z',
  '00000000-0000-0000-0000-000000000000',
  { $gt: '' },
  ['a', 1, null],
  nested(8),
];

function merge(schemas: Schema[]): Schema {
  const out: Schema = { type: 'object', properties: {}, required: [] };
  for (const s of schemas) {
    if (s.properties) Object.assign(out.properties, s.properties);
    if (s.required) out.required.push(...s.required);
    if (s.type && s.type !== 'object') return s;
  }
  return out;
}

function stringFor(schema: Schema, random: Random): string {
  switch (schema.format) {
    case 'uuid':
      return random.uuid();
    case 'date-time':
      return new Date(Date.UTC(2026, 0, 1 + random.int(300), 9)).toISOString();
    case 'date':
      return '2026-03-02';
    case 'email':
      return `fuzz${random.int(1e6)}@example.com`;
    case 'uri':
    case 'url':
      return 'https://example.com/fuzz';
  }
  const min = schema.minLength ?? 1;
  const max = schema.maxLength ?? 20;
  return 'fuzz'.padEnd(Math.min(Math.max(min, 4), max), 'z').slice(0, Math.max(min, Math.min(max, 4)));
}

/** A value the schema admits, preferring its documented example. */
export function validValue(schema: Schema | undefined, random: Random, depth = 0): unknown {
  if (!schema || depth > 6) return undefined;
  if (schema.example !== undefined) return structuredClone(schema.example);
  if (schema.enum?.length) return random.pick(schema.enum);
  if (schema.default !== undefined) return structuredClone(schema.default);
  if (schema.allOf) return validValue(merge(schema.allOf), random, depth);
  if (schema.oneOf || schema.anyOf) return validValue((schema.oneOf ?? schema.anyOf)[0], random, depth);
  switch (schema.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const required = new Set<string>(schema.required ?? []);
      for (const [key, prop] of Object.entries<Schema>(schema.properties ?? {})) {
        if (!required.has(key) && !random.chance(0.6)) continue;
        const v = validValue(prop, random, depth + 1);
        if (v !== undefined) out[key] = v;
      }
      return out;
    }
    case 'array': {
      const item = validValue(schema.items, random, depth + 1);
      return item === undefined ? [] : [item];
    }
    case 'string':
      return stringFor(schema, random);
    case 'integer':
      return schema.minimum ?? 1;
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return random.chance(0.5);
  }
  return schema.properties ? validValue({ ...schema, type: 'object' }, random, depth) : undefined;
}

/** The top-level property names of a request body schema (composed schemas merged). */
export function bodyProperties(schema: Schema | undefined): { names: string[]; required: string[] } {
  if (!schema) return { names: [], required: [] };
  const s = schema.allOf ? merge(schema.allOf) : schema;
  return { names: Object.keys(s.properties ?? {}), required: [...(s.required ?? [])] };
}
