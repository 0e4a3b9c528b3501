import { SchemaInference } from '../column-inference';
import { encodeValue, Row } from '../column-types';
import type { RecordsLoad } from '../records-load';
import { MAX_IMPORT_COLUMNS } from '../records-table';
import type { FillResult, Progress } from './fill-result';
import { ImportError } from './import-error';
import { tooManyColumns } from './row-sources';

/** Rows past this are refused: no legitimate upload of 128 MB holds more, a decompression bomb might. */
export const MAX_IMPORT_ROWS = 5_000_000;

/**
 * Table sources (CSV, JSON, XML, Excel): rows of named values, one column a name, the column types inferred as
 * the rows stream ('strings': every value is text to infer from; 'typed': the source's own types count).
 */
export async function writeRows(
  load: RecordsLoad,
  progress: Progress,
  rows: AsyncIterable<Row>,
  mode: 'strings' | 'typed',
): Promise<FillResult> {
  const schema = new SchemaInference(mode);
  let known = 0;
  const put = async (out: Row) => {
    const columns = schema.columns;
    if (columns.length > MAX_IMPORT_COLUMNS) throw tooManyColumns(null);
    if (!load.started) await load.start(columns.map((c) => c.id));
    else if (columns.length > known) await load.addColumns(columns.slice(known).map((c) => c.id));
    known = columns.length;
    // Own keys only: `out` is a plain object, and `constructor` is a column name like any other.
    await load.write(
      columns.map((c) => (Object.hasOwn(out, c.name) ? encodeValue(c.type, out[c.name]) : null)),
    );
  };
  let read = 0;
  for await (const row of rows) {
    if (++read > MAX_IMPORT_ROWS) throw new ImportError(`refused: more than ${MAX_IMPORT_ROWS} rows`);
    for (const out of schema.push(row)) await put(out);
    progress(read);
  }
  for (const out of schema.flush()) await put(out);
  const byName = new Map(schema.columns.map((c) => [c.name, c.id]));
  const jsonSince = new Map([...schema.jsonSince].map(([name, n]) => [byName.get(name)!, n]));
  return { columns: schema.columns, jsonSince, count: load.count, total: null };
}
