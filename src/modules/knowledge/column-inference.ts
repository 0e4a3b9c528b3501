import { fitsValue, isDateString, isUrlString, NUMERIC, scalarText, TRUE_FALSE } from './column-types';
import type { Column, ColumnType, Row } from './column-types';

/**
 * How an import decides its column types: from the first rows of a source (strings of CSV and XML, or typed
 * values of JSON and Excel), turning a column to text or json when a later value does not fit.
 */

/** The type a set of non-empty strings (CSV and XML values) fits, in this order of preference. */
function stringType(values: string[]): ColumnType {
  if (values.length === 0) return 'text';
  if (values.every((v) => TRUE_FALSE.test(v))) return 'boolean';
  if (values.every((v) => NUMERIC.test(v.trim()) && Number.isFinite(Number(v)))) return 'number';
  if (values.every((v) => isDateString(v))) return 'date';
  if (values.every((v) => isUrlString(v))) return 'url';
  return 'text';
}

function fitsString(type: ColumnType, v: string): boolean {
  switch (type) {
    case 'boolean':
      return TRUE_FALSE.test(v);
    case 'number':
      return NUMERIC.test(v.trim()) && Number.isFinite(Number(v));
    case 'date':
      return isDateString(v);
    case 'url':
      return isUrlString(v);
    default:
      return true;
  }
}

/**
 * Column types of string rows given as arrays (the CSV fast path, where PostgreSQL stores the values and this
 * only decides their types). The same rule as `SchemaInference` in `strings` mode: the first `sampleSize`
 * rows choose each column's type, and a later non-empty value that does not fit turns the column to text.
 */
export class StringColumnTypes {
  private sample: (string | null)[][] | null = [];
  private types: ColumnType[] = [];
  rows = 0;

  constructor(
    private readonly width: number,
    private readonly sampleSize = 1000,
  ) {}

  push(values: (string | null)[]): void {
    this.rows++;
    if (this.sample) {
      this.sample.push(values);
      if (this.sample.length >= this.sampleSize) this.settle();
      return;
    }
    for (let i = 0; i < this.width; i++) {
      const type = this.types[i];
      if (type === 'text') continue;
      const v = values[i];
      if (v !== null && v !== undefined && v !== '' && !fitsString(type, v)) this.types[i] = 'text';
    }
  }

  private settle(): void {
    const sample = this.sample ?? [];
    this.sample = null;
    for (let i = 0; i < this.width; i++)
      this.types[i] = stringType(
        sample.map((r) => r[i]).filter((v): v is string => v !== null && v !== undefined && v !== ''),
      );
  }

  /** The types, column by column, once every row is in. */
  result(): ColumnType[] {
    if (this.sample) this.settle();
    return [...this.types];
  }
}

/**
 * Infers column types while rows stream by. `strings` sources (CSV, XML) give every value as text, which is kept
 * as it is (the type says how it reads); `typed` sources (JSON, Excel) keep their types. Types come from a sample
 * of the first rows; a later value that does not fit widens its column (to text, or json for nested values).
 * `jsonSince` names the columns widened to json while they held plain strings, with how many rows were written
 * before that: those rows' values must be turned into JSON strings afterwards.
 */
export class SchemaInference {
  readonly columns: Column[] = [];
  readonly jsonSince = new Map<string, number>();
  private sample: Row[] | null = [];
  private written = 0;

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
      // A column that appears after inference takes any value: its type is unknown.
      this.columns.push({ id: this.columns.length + 1, name: key, type: this.sample ? 'text' : 'json' });
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
    return sample.map((r) => this.convert(r));
  }

  private inferType(values: unknown[]): ColumnType {
    if (values.length === 0) return 'text';
    if (this.mode === 'strings') return stringType(values as string[]);
    if (values.some((v) => typeof v === 'object')) return 'json';
    for (const t of ['boolean', 'number', 'date', 'url', 'text'] as const)
      if (values.every((v) => fitsValue(t, v))) return t;
    return 'text';
  }

  private convert(row: Row): Row {
    // A plain object is safe here (column names never include `__proto__`) and much faster than a null prototype.
    const out: Row = {};
    for (const column of this.columns) {
      if (!Object.prototype.hasOwnProperty.call(row, column.name)) continue;
      const raw = row[column.name];
      out[column.name] = this.convertValue(column, raw);
    }
    this.written++;
    return out;
  }

  private convertValue(column: Column, raw: unknown): unknown {
    if (raw === null || raw === undefined) return null;
    if (this.mode === 'strings') {
      const s = scalarText(raw);
      if (s === '') return null;
      if (column.type === 'json' || fitsString(column.type, s)) return s;
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
    // Numbers and booleans already written read as JSON as they are; strings need quoting.
    if (to === 'json' && ['text', 'date', 'url'].includes(column.type))
      this.jsonSince.set(column.name, this.written);
    column.type = to;
  }
}
