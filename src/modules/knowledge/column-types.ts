export const COLUMN_TYPES = ['text', 'number', 'date', 'boolean', 'json', 'url'] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

export interface Column {
  id: number;
  name: string;
  type: ColumnType;
}

export type Row = Record<string, unknown>;

/** The columns of text-like sources (paste, text, PDF, audio, website): one record per chunk. */
export const CHUNK_COLUMNS: Column[] = [
  { id: 1, name: 'content', type: 'text' },
  { id: 2, name: 'source', type: 'text' },
  { id: 3, name: 'position', type: 'number' },
];

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

export function isDateString(v: unknown): v is string {
  return typeof v === 'string' && ISO_DATE.test(v) && !Number.isNaN(Date.parse(v.replace(' ', 'T')));
}

export function isUrlString(v: unknown): v is string {
  if (typeof v !== 'string' || !/^https?:\/\//i.test(v)) return false;
  try {
    return Boolean(new URL(v).hostname);
  } catch {
    return false;
  }
}

const DESCRIBE: Record<ColumnType, string> = {
  text: 'a string',
  number: 'a number',
  date: 'an ISO 8601 date',
  boolean: 'a boolean',
  json: 'a JSON value',
  url: 'an http(s) URL',
};

/** Whether a JSON value fits a column type (null fits every column). */
export function fitsValue(type: ColumnType, v: unknown): boolean {
  if (v === null || v === undefined) return true;
  switch (type) {
    case 'text':
      return typeof v === 'string';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'date':
      return isDateString(v);
    case 'url':
      return isUrlString(v);
    case 'json':
      return true;
  }
}

export interface ValueProblem {
  code: 'INVALID_FORMAT' | 'VALIDATION_ERROR';
  column: string;
  message: string;
}

/** Checks one record against the columns: unknown keys and values of the wrong type, each naming the column. */
export function checkRecord(columns: Column[], record: unknown): ValueProblem[] {
  if (record === null || typeof record !== 'object' || Array.isArray(record))
    return [{ code: 'INVALID_FORMAT', column: '', message: 'must be an object of column values' }];
  const byName = new Map(columns.map((c) => [c.name, c]));
  const problems: ValueProblem[] = [];
  for (const [key, value] of Object.entries(record)) {
    const column = byName.get(key);
    if (!column) {
      problems.push({
        code: 'VALIDATION_ERROR',
        column: key,
        message: `${key} is not a column of this table`,
      });
    } else if (!fitsValue(column.type, value)) {
      problems.push({
        code: 'INVALID_FORMAT',
        column: key,
        message: `${key} must be ${DESCRIBE[column.type]}`,
      });
    }
  }
  return problems;
}

/** A copy of the record with only own, known columns, on a null prototype (no `__proto__` tricks). */
export function cleanRecord(columns: Column[], record: Row): Row {
  const out: Row = Object.create(null) as Row;
  for (const c of columns)
    if (Object.prototype.hasOwnProperty.call(record, c.name)) out[c.name] = record[c.name];
  return out;
}

/** A scalar as text; objects (never expected here) as JSON. */
function scalarText(v: unknown): string {
  return typeof v === 'object' ? JSON.stringify(v) : String(v as string | number | boolean);
}

/**
 * Infers column types while rows stream by. `strings` sources (CSV, XML) give every value as text and are
 * converted; `typed` sources (JSON, Excel) keep their types. Types come from a sample of the first rows; a later
 * value that does not fit widens its column (to text, or json for nested values), and `widened` tells the
 * writer which already-written values to convert afterwards.
 */
export class SchemaInference {
  readonly columns: Column[] = [];
  readonly widened = new Set<string>();
  private sample: Row[] | null = [];

  constructor(
    private readonly mode: 'strings' | 'typed',
    private readonly sampleSize = 1000,
  ) {}

  get inferred(): boolean {
    return this.sample === null;
  }

  /** Adds a row; answers the rows ready to write (none while sampling, then the sample, then one by one). */
  push(row: Row): Row[] {
    this.addKeys(row);
    if (this.sample) {
      this.sample.push(row);
      if (this.sample.length < this.sampleSize) return [];
      return this.finishSample();
    }
    return [this.convert(row)];
  }

  /** The rows still held back (a file shorter than the sample). */
  flush(): Row[] {
    return this.sample ? this.finishSample() : [];
  }

  private addKeys(row: Row): void {
    for (const key of Object.keys(row)) {
      if (key === '__proto__' || this.columns.some((c) => c.name === key)) continue;
      // A column that appears after inference is widened at once: its type is unknown.
      this.columns.push({ id: this.columns.length + 1, name: key, type: this.sample ? 'text' : 'json' });
      if (!this.sample) this.widened.add(key);
    }
  }

  private finishSample(): Row[] {
    const sample = this.sample ?? [];
    this.sample = null;
    for (const column of this.columns) {
      const values = sample
        .map((r) => r[column.name])
        .filter((v) => v !== null && v !== undefined && v !== '');
      column.type = this.inferType(values);
    }
    this.widened.clear();
    return sample.map((r) => this.convert(r));
  }

  private inferType(values: unknown[]): ColumnType {
    if (values.length === 0) return 'text';
    if (this.mode === 'strings') {
      const s = values as string[];
      if (s.every((v) => /^(true|false)$/i.test(v))) return 'boolean';
      if (s.every((v) => NUMERIC.test(v.trim()) && Number.isFinite(Number(v)))) return 'number';
      if (s.every((v) => isDateString(v))) return 'date';
      if (s.every((v) => isUrlString(v))) return 'url';
      return 'text';
    }
    if (values.some((v) => typeof v === 'object')) return 'json';
    for (const t of ['boolean', 'number', 'date', 'url', 'text'] as const)
      if (values.every((v) => fitsValue(t, v))) return t;
    return 'text';
  }

  private convert(row: Row): Row {
    const out: Row = Object.create(null) as Row;
    for (const column of this.columns) {
      if (!Object.prototype.hasOwnProperty.call(row, column.name)) continue;
      const raw = row[column.name];
      out[column.name] = this.convertValue(column, raw);
    }
    return out;
  }

  private convertValue(column: Column, raw: unknown): unknown {
    if (raw === null || raw === undefined) return null;
    if (this.mode === 'strings') {
      const s = scalarText(raw);
      if (s === '') return null;
      switch (column.type) {
        case 'number':
          if (NUMERIC.test(s.trim()) && Number.isFinite(Number(s))) return Number(s);
          break;
        case 'boolean':
          if (/^(true|false)$/i.test(s)) return s.toLowerCase() === 'true';
          break;
        case 'date':
          if (isDateString(s)) return s;
          break;
        case 'url':
          if (isUrlString(s)) return s;
          break;
        default:
          return s;
      }
      this.widen(column, 'text');
      return s;
    }
    if (fitsValue(column.type, raw)) return raw;
    if (typeof raw === 'object') {
      this.widen(column, 'json');
      return raw;
    }
    if (column.type === 'json') return raw;
    this.widen(column, 'text');
    return scalarText(raw);
  }

  private widen(column: Column, to: 'text' | 'json'): void {
    if (column.type === 'json' || column.type === to) return;
    column.type = to;
    this.widened.add(column.name);
  }
}
