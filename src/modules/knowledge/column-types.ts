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
/** A number as text (what PostgreSQL's numeric accepts). */
export const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

export function isDateString(v: unknown): v is string {
  return typeof v === 'string' && ISO_DATE.test(v) && !Number.isNaN(Date.parse(v.replace(' ', 'T')));
}

export function isUrlString(v: unknown): v is string {
  // http and https are special schemes: the URL parser refuses them without a host, so parsing is enough.
  return typeof v === 'string' && /^https?:\/\//i.test(v) && URL.canParse(v);
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
export function scalarText(v: unknown): string {
  return typeof v === 'object' ? JSON.stringify(v) : String(v as string | number | boolean);
}

/** Every string sent to PostgreSQL loses NUL characters (text columns cannot hold them). */
function withoutNul(s: string): string {
  return s.includes('\u0000') ? s.replaceAll('\u0000', '') : s;
}

/**
 * How a value is stored in its records-table column (always `text`): a `json` column holds the value as JSON
 * text; every other column holds the scalar's text (`19.5`, `true`, the string itself). NUL characters are
 * removed (PostgreSQL refuses them in text, and as `\u0000` escapes in jsonb).
 */
export function encodeValue(type: ColumnType, v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (type === 'json') {
    const json = JSON.stringify(v) as string | undefined;
    if (json === undefined) return null;
    return json.includes('\\u0000') ? json.replace(/(?<!\\)((?:\\\\)*)\\u0000/g, '$1') : json;
  }
  if (typeof v === 'string') return withoutNul(v);
  return withoutNul(scalarText(v));
}

export const TRUE_FALSE = /^(true|false)$/i;

/**
 * A stored value as the API answers it, by its column's type. Stored text that does not read as its type
 * (possible only for values written before a column's type was settled) is answered as the text itself.
 */
export function decodeValue(type: ColumnType, text: string | null): unknown {
  if (text === null) return null;
  switch (type) {
    case 'number': {
      const n = Number(text);
      return text.trim() !== '' && Number.isFinite(n) ? n : text;
    }
    case 'boolean':
      return TRUE_FALSE.test(text) ? text.toLowerCase() === 'true' : text;
    case 'json':
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
    default:
      return text;
  }
}
