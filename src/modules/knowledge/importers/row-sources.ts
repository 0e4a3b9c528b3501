import { parse as parseCsv } from 'csv-parse';
import ExcelJS from 'exceljs';
import * as fs from 'node:fs';
import { SaxesParser } from 'saxes';
import type { Row } from '../column-types';
import { MAX_IMPORT_COLUMNS } from '../records-table';
import { ImportError } from './import-error';
import { CentralDirectoryWorkbookReader } from './workbook-reader';

// stream-json ships CommonJS without types for its parser factory's token stream.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parser: jsonParser } = require('stream-json') as {
  parser: (options: Record<string, unknown>) => NodeJS.ReadWriteStream;
};

/** One field may not grow past this; a record past it is a malformed or hostile file. */
export const MAX_FIELD_BYTES = 1024 * 1024;
const MAX_DEPTH = 64;
// eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
const CONTROL_CHARS = /[\u0000-\u001f]/g;
const FORBIDDEN_KEYS = new Set(['__proto__']);

/** Header names made unique and non-empty (`column_3`, `price_2`). */
export function headerNames(raw: unknown[]): string[] {
  const seen = new Set<string>();
  return raw.map((h, i) => {
    let name = (typeof h === 'string' ? h : h === null || h === undefined ? '' : JSON.stringify(h))
      .replace(/^\uFEFF/, '')
      .replace(CONTROL_CHARS, '')
      .trim()
      .slice(0, 63);
    if (!name || FORBIDDEN_KEYS.has(name)) name = `column_${i + 1}`;
    let unique = name;
    for (let n = 2; seen.has(unique); n++) unique = `${name}_${n}`;
    seen.add(unique);
    return unique;
  });
}

/** CSV rows keyed by the header row, with the delimiter found in the header line (see csvLayout). */
export async function* csvRows(file: string, delimiter: string): AsyncGenerator<Row> {
  const parser = fs.createReadStream(file).pipe(
    parseCsv({
      bom: true,
      delimiter,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      max_record_size: MAX_FIELD_BYTES,
    }),
  );
  let header: string[] | null = null;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (!header) {
        if (record.length > MAX_IMPORT_COLUMNS) throw tooManyColumns(record.length);
        header = headerNames(record);
        continue;
      }
      // Header names never include `__proto__` (headerNames renames it), so a plain object is safe.
      const row: Row = {};
      for (let i = 0; i < header.length; i++) row[header[i]] = record[i] ?? null;
      yield row;
    }
  } catch (err) {
    if (err instanceof ImportError) throw err;
    // A header row past the record size is a table far wider than the column limit.
    if (!header && (err as { code?: string }).code === 'CSV_MAX_RECORD_SIZE') throw tooManyColumns(null);
    throw new ImportError(`invalid CSV: ${(err as Error).message}`);
  }
}

/** The refusal of a table wider than the limit, naming it. */
export function tooManyColumns(count: number | null): ImportError {
  return new ImportError(
    count
      ? `refused: the table has ${count} columns, more than the limit of ${MAX_IMPORT_COLUMNS}`
      : `refused: the table has more than the limit of ${MAX_IMPORT_COLUMNS} columns`,
  );
}

interface Token {
  name: string;
  value?: string;
}

/**
 * A JSON array of objects, one object at a time from a token stream (nothing holds the whole file). Objects are
 * built on a null prototype and `__proto__` keys are dropped, so a hostile key cannot reach any prototype.
 */
export async function* jsonRows(file: string): AsyncGenerator<Row> {
  const tokens = fs
    .createReadStream(file)
    .pipe(jsonParser({ packValues: true, streamValues: false, jsonStreaming: false }));
  const stack: { container: Row | unknown[]; key: string | null }[] = [];
  let started = false;
  const put = (value: unknown): Row | null => {
    const top = stack[stack.length - 1];
    if (!top) throw new ImportError('JSON must be an array of objects');
    if (Array.isArray(top.container)) {
      if (stack.length === 1) {
        if (value === null || typeof value !== 'object' || Array.isArray(value))
          throw new ImportError('JSON must be an array of objects');
        return value as Row;
      }
      top.container.push(value);
    } else if (top.key !== null) {
      if (!FORBIDDEN_KEYS.has(top.key)) top.container[top.key] = value;
      top.key = null;
    }
    return null;
  };
  try {
    for await (const token of tokens as AsyncIterable<Token>) {
      if (!started) {
        if (token.name !== 'startArray') throw new ImportError('JSON must be an array of objects');
        started = true;
        stack.push({ container: [], key: null });
        continue;
      }
      let done: Row | null = null;
      switch (token.name) {
        case 'startObject':
        case 'startArray':
          if (stack.length >= MAX_DEPTH) throw new ImportError(`JSON nested deeper than ${MAX_DEPTH} levels`);
          stack.push({
            container: token.name === 'startArray' ? [] : (Object.create(null) as Row),
            key: null,
          });
          break;
        case 'endObject':
        case 'endArray': {
          const closed = stack.pop()!;
          if (stack.length > 0) done = put(closed.container);
          break;
        }
        case 'keyValue':
          (stack[stack.length - 1] as { key: string | null }).key = token.value ?? '';
          break;
        case 'stringValue':
          if ((token.value ?? '').length > MAX_FIELD_BYTES)
            throw new ImportError('JSON string value too long');
          done = put(token.value);
          break;
        case 'numberValue':
          done = put(Number(token.value));
          break;
        case 'trueValue':
          done = put(true);
          break;
        case 'falseValue':
          done = put(false);
          break;
        case 'nullValue':
          done = put(null);
          break;
      }
      if (done) yield done;
    }
  } catch (err) {
    if (err instanceof ImportError) throw err;
    throw new ImportError(`invalid JSON: ${(err as Error).message}`);
  }
  if (!started) throw new ImportError('JSON must be an array of objects');
}

/**
 * XML records: each child of the root element is a record, its attributes and child elements the fields.
 * A document type declaration is refused outright, so no entity (internal or external) is ever expanded.
 */
export async function* xmlRows(file: string): AsyncGenerator<Row> {
  const parser = new SaxesParser({ xmlns: false, position: false });
  let failure: Error | null = null;
  const ready: Row[] = [];
  let depth = 0;
  let record: Row | null = null;
  let field: string | null = null;
  let text = '';
  parser.on('doctype', () => {
    failure ??= new ImportError(
      'XML with a document type declaration (DOCTYPE) is refused: entities are not expanded',
    );
  });
  parser.on('opentag', (tag) => {
    depth++;
    if (depth > MAX_DEPTH) failure ??= new ImportError(`XML nested deeper than ${MAX_DEPTH} levels`);
    if (depth === 2) {
      record = Object.create(null) as Row;
      for (const [k, v] of Object.entries(tag.attributes)) if (!FORBIDDEN_KEYS.has(k)) record[k] = String(v);
    } else if (depth === 3) {
      field = FORBIDDEN_KEYS.has(tag.name) ? null : tag.name;
      text = '';
    }
  });
  parser.on('text', (t) => {
    if (depth >= 3 && field !== null) {
      text += t;
      if (text.length > MAX_FIELD_BYTES) failure ??= new ImportError('XML field too long');
    }
  });
  parser.on('cdata', (t) => {
    if (depth >= 3 && field !== null) text += t;
  });
  parser.on('closetag', () => {
    if (depth === 3 && record && field !== null) record[field] = text.trim();
    if (depth === 2 && record) {
      ready.push(record);
      record = null;
    }
    depth--;
  });
  parser.on('error', (err) => {
    failure ??= new ImportError(`invalid XML: ${err.message}`);
  });
  for await (const chunk of fs.createReadStream(file, { encoding: 'utf8', highWaterMark: 256 * 1024 })) {
    try {
      parser.write(chunk as string);
    } catch (err) {
      failure ??= new ImportError(`invalid XML: ${(err as Error).message}`);
    }
    if (failure) throw failure;
    yield* ready.splice(0);
  }
  try {
    parser.close();
  } catch (err) {
    failure ??= new ImportError(`invalid XML: ${(err as Error).message}`);
  }
  if (failure) throw failure;
  yield* ready.splice(0);
}

function cellValue(value: ExcelJS.CellValue): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value !== 'object') return value;
  if ('richText' in value) return value.richText.map((r) => r.text).join('');
  if ('formula' in value || 'sharedFormula' in value)
    return cellValue((value as { result?: ExcelJS.CellValue }).result ?? null);
  if ('hyperlink' in value) return (value as { text?: string }).text ?? value.hyperlink;
  if ('error' in value) return null;
  return null;
}

/** The first worksheet of an .xlsx, streamed; its first row is the header. */
export async function* excelRows(file: string): AsyncGenerator<Row> {
  const reader = new CentralDirectoryWorkbookReader(file, {
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    // Styles are needed to tell dates from numbers.
    styles: 'cache',
    worksheets: 'emit',
  });
  let header: string[] | null = null;
  try {
    for await (const sheet of reader) {
      for await (const row of sheet as AsyncIterable<ExcelJS.Row>) {
        const values = (row.values as ExcelJS.CellValue[]).slice(1).map(cellValue);
        if (!header) {
          header = headerNames(values);
          continue;
        }
        const out: Row = Object.create(null) as Row;
        let any = false;
        for (let i = 0; i < header.length; i++) {
          const v = values[i] ?? null;
          if (v !== null && v !== '') any = true;
          out[header[i]] = v;
        }
        if (any) yield out;
      }
      break;
    }
  } catch (err) {
    if (err instanceof ImportError) throw err;
    // The reader's own message speaks of its code (`Cannot read properties of undefined`), not of the file.
    throw new ImportError('the file is not a readable Excel workbook (.xlsx): its content is damaged');
  }
}
