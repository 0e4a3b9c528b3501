import { parse as parseCsvSync } from 'csv-parse/sync';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { inferSchema, initParser, Parser } from 'udsv';
import type { Column } from '../column-types';
import { StringColumnTypes } from '../column-inference';
import { MAX_FIELD_BYTES, headerNames } from './row-sources';

/** How a CSV file is laid out, read from its first line. */
export interface CsvLayout {
  delimiter: ',' | ';' | '\t';
  /** The header's column names, made unique and non-empty. */
  names: string[];
  /** The line ending of the first line. */
  newline: '\n' | '\r\n';
}

const DELIMITERS = [',', ';', '\t'] as const;

/**
 * Bytes read at a time. Small enough that the decoded text stays out of V8's large-object space (collected only
 * by full collections, so 1 MB pieces pile up to hundreds of MB during a 100 MB import).
 */
const CHUNK_BYTES = 64 * 1024;

/**
 * The delimiter (comma, semicolon or tab: whichever the header line holds most of, comma on a tie or none) and
 * the header, from the first bytes of the file. Null when the first line is not within `head`.
 */
export function csvLayout(head: Buffer): CsvLayout | null {
  const text = head.toString('utf8').replace(/^\uFEFF/, '');
  const end = text.indexOf('\n');
  if (end < 0) return null;
  const line = text.slice(0, end).replace(/\r$/, '');
  // A header with a quoted line break is left to the general reader.
  if ((line.match(/"/g) ?? []).length % 2 === 1) return null;
  const counts = DELIMITERS.map((d) => line.split(d).length - 1);
  const delimiter = DELIMITERS[counts.indexOf(Math.max(...counts))];
  const [raw] = parseCsvSync(line, { delimiter, relax_quotes: true, relax_column_count: true }) as string[][];
  return {
    delimiter,
    names: headerNames(raw ?? []),
    newline: text[end - 1] === '\r' ? '\r\n' : '\n',
  };
}

/** Why the fast path gave way to the general reader (kept for the logs). */
export class FastPathRefused extends Error {}

/** Files smaller than this are stored over one connection; larger ones over two, each taking a part. */
export const SPLIT_MIN_BYTES = 8 * 1024 * 1024;

/** Where a CSV file is cut in two, and how many records (the header included) come before the cut. */
export interface CsvSplit {
  cut: number;
  firstRecords: number;
}

/**
 * Where to cut a CSV file in two parts that PostgreSQL can read apart: the first line break after the middle
 * that is outside quotes (an even number of `"` before it, which holds in any well-formed file since an escaped
 * quote is doubled), with the number of records before it. Null for a small file or when no such line break is
 * found. A file whose quoting is not well formed may be cut inside a field; then PostgreSQL refuses a part or
 * the row counts differ, and the file takes the general reader.
 */
export async function csvSplit(file: string, minBytes = SPLIT_MIN_BYTES): Promise<CsvSplit | null> {
  const size = (await fsp.stat(file)).size;
  if (size < minBytes) return null;
  const middle = Math.floor(size / 2);
  const handle = await fsp.open(file, 'r');
  try {
    const buffer = Buffer.alloc(1024 * 1024);
    let quoted = false;
    let records = 0;
    for (let offset = 0; offset < size;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      let quote = chunk.indexOf(0x22);
      let newline = chunk.indexOf(0x0a);
      while (newline >= 0) {
        if (quote >= 0 && quote < newline) {
          quoted = !quoted;
          quote = chunk.indexOf(0x22, quote + 1);
          continue;
        }
        if (!quoted) {
          records++;
          if (offset + newline >= middle) {
            const cut = offset + newline + 1;
            return cut < size ? { cut, firstRecords: records } : null;
          }
        }
        newline = chunk.indexOf(0x0a, newline + 1);
      }
      // Quotes after the last line break of the piece still count.
      for (; quote >= 0; quote = chunk.indexOf(0x22, quote + 1)) quoted = !quoted;
      offset += bytesRead;
    }
    return null;
  } finally {
    await handle.close();
  }
}

/**
 * Writes the records from byte `start` to the end of a CSV file, each preceded by its id (`firstId`, then one
 * more a record) and the delimiter: the second part's rows take the ids that follow the first part's, so that
 * ids keep the order of the file although both parts are stored at once.
 */
export async function feedNumbered(
  file: string,
  copy: NodeJS.WritableStream,
  start: number,
  firstId: number,
  delimiter: string,
): Promise<void> {
  let id = firstId;
  let quoted = false;
  let recordStart = true;
  for await (const piece of fs.createReadStream(file, { start, highWaterMark: 256 * 1024 })) {
    const chunk = piece as Buffer;
    const out: Buffer[] = [];
    let from = 0;
    let quote = chunk.indexOf(0x22);
    let newline = chunk.indexOf(0x0a);
    for (;;) {
      if (recordStart && from < chunk.length) {
        out.push(Buffer.from(`${id++}${delimiter}`));
        recordStart = false;
      }
      if (newline < 0) break;
      if (quote >= 0 && quote < newline) {
        quoted = !quoted;
        quote = chunk.indexOf(0x22, quote + 1);
        continue;
      }
      if (!quoted) {
        out.push(chunk.subarray(from, newline + 1));
        from = newline + 1;
        recordStart = true;
      }
      newline = chunk.indexOf(0x0a, newline + 1);
    }
    for (; quote >= 0; quote = chunk.indexOf(0x22, quote + 1)) quoted = !quoted;
    if (from < chunk.length) out.push(chunk.subarray(from));
    await write(copy, Buffer.concat(out));
  }
}

/** Writes bytes `start` to `end` (exclusive; the end of the file when absent) of a file to a stream. */
export async function feedRange(
  file: string,
  copy: NodeJS.WritableStream,
  start: number,
  end?: number,
): Promise<void> {
  if (end !== undefined && end <= start) return;
  const stream = fs.createReadStream(file, {
    start,
    ...(end !== undefined ? { end: end - 1 } : {}),
    highWaterMark: 256 * 1024,
  });
  for await (const chunk of stream) await write(copy, chunk as Buffer);
}

/** Writes with backpressure; fails instead of waiting forever when the COPY was stopped meanwhile. */
async function write(copy: NodeJS.WritableStream, chunk: Buffer): Promise<void> {
  if (copy.write(chunk)) return;
  const stopped = () => new Error('the COPY was stopped');
  if ((copy as unknown as { destroyed: boolean }).destroyed) throw stopped();
  await new Promise<void>((resolve, reject) => {
    const settle = (err?: Error) => {
      copy.off('drain', onDrain);
      copy.off('close', onClose);
      copy.off('error', onError);
      if (err) reject(err);
      else resolve();
    };
    const onDrain = () => settle();
    const onClose = () => settle(stopped());
    const onError = (err: Error) => settle(err);
    copy.on('drain', onDrain);
    copy.on('close', onClose);
    copy.on('error', onError);
  });
}

/**
 * Reads a CSV file with a fast JavaScript reader while PostgreSQL's COPY stores it: this decides the column
 * types and counts the rows. Anything this reader and PostgreSQL might read differently (an empty line, a row
 * of the wrong width, a record past the field limit, row counts that differ) refuses the fast path; the caller
 * then imports the file with the general reader.
 */
export class CsvFastPath {
  private readonly types: StringColumnTypes;
  private parser: Parser | null = null;
  private sinceRow = 0;
  private header = true;
  /** Data rows read (the header row excluded). */
  rows = 0;

  constructor(
    private readonly layout: CsvLayout,
    private readonly onRows: (rows: number) => void,
  ) {
    this.types = new StringColumnTypes(layout.names.length);
  }

  async read(file: string): Promise<void> {
    const decoder = new StringDecoder('utf8');
    const width = this.layout.names.length;
    const onRow = (row: string[]) => {
      this.sinceRow = 0;
      if (this.header) {
        this.header = false;
        return;
      }
      if (row.length !== width) throw new FastPathRefused('a row of another width');
      let size = 0;
      for (const field of row) size += field.length;
      // The general reader refuses such a record; leave it to say so.
      if (size > MAX_FIELD_BYTES) throw new FastPathRefused('a record past the field limit');
      this.rows++;
      this.types.push(row);
    };
    for await (const chunk of fs.createReadStream(file, { highWaterMark: CHUNK_BYTES })) {
      const text = decoder.write(chunk as Buffer);
      this.parser ??= initParser(
        inferSchema(text, {
          col: this.layout.delimiter,
          row: this.layout.newline,
          encl: '"',
          header: () => [],
        }),
      );
      this.parser.chunk<string[]>(text, this.parser.stringArrs, onRow);
      this.sinceRow += (chunk as Buffer).length;
      // A record that never ends (an open quote) would grow in memory: stop reading well before that.
      if (this.sinceRow > 4 * MAX_FIELD_BYTES) throw new FastPathRefused('a record past the field limit');
      this.onRows(this.rows);
    }
    const rest = decoder.end();
    if (rest && this.parser) this.parser.chunk<string[]>(rest, this.parser.stringArrs, onRow);
    this.parser?.end();
  }

  /** The columns with their types, once PostgreSQL's row count has been checked against this reader's. */
  columns(storedRows: number): Column[] {
    if (storedRows !== this.rows)
      throw new FastPathRefused(`PostgreSQL read ${storedRows} rows, the reader ${this.rows}`);
    const types = this.types.result();
    return this.layout.names.map((name, i) => ({ id: i + 1, name, type: types[i] }));
  }
}
