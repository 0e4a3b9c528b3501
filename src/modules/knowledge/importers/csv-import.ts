import type { Logger } from '@nestjs/common';
import * as fsp from 'node:fs/promises';
import type { CsvPart, RecordsLoad } from '../records-load';
import { MAX_IMPORT_COLUMNS } from '../records-table';
import {
  CsvFastPath,
  csvLayout,
  csvSplit,
  FastPathRefused,
  feedNumbered,
  feedRange,
  SPLIT_MIN_BYTES,
} from './csv-fast';
import { readHead } from './detect-kind';
import type { FillResult, Progress } from './fill-result';
import { csvRows } from './row-sources';
import { writeRows } from './table-import';

/**
 * A clean CSV file is read by PostgreSQL itself (COPY ... FORMAT csv) while a fast reader decides the column
 * types on the same pass; a file that PostgreSQL refuses or might read differently (see CsvFastPath) is read
 * by csv-parse, which tolerates ragged rows and stray quotes. Both give the same records and types.
 */
export async function fillCsv(
  file: string,
  load: RecordsLoad,
  progress: Progress,
  logger: Logger,
): Promise<FillResult> {
  const layout = csvLayout(await readHead(file, 64 * 1024));
  if (layout && layout.names.length >= 2 && layout.names.length <= MAX_IMPORT_COLUMNS) {
    const fast = new CsvFastPath(layout, (rows) => progress(rows));
    // The reader runs beside the COPY; its verdict is awaited once PostgreSQL is done.
    const reading = fast.read(file);
    reading.catch(() => undefined);
    // A large file goes in two parts at once. The first part starts at once with the bytes before the middle
    // (the cut always comes after it) while the cut is being found.
    const size = (await fsp.stat(file)).size;
    const splitting = size >= SPLIT_MIN_BYTES ? csvSplit(file, 0) : null;
    splitting?.catch(() => undefined);
    const middle = Math.floor(size / 2);
    const parts: CsvPart[] = splitting
      ? [
          {
            header: true,
            withIds: false,
            feed: async (copy) => {
              await feedRange(file, copy, 0, middle);
              const split = await splitting;
              await feedRange(file, copy, middle, split?.cut);
            },
          },
          {
            header: false,
            withIds: true,
            // The first part's data rows take ids 1 to firstRecords - 1 (its header is not a row).
            feed: async (copy) => {
              const split = await splitting;
              if (split) await feedNumbered(file, copy, split.cut, split.firstRecords, layout.delimiter);
            },
          },
        ]
      : [{ header: true, withIds: false, feed: (copy) => feedRange(file, copy, 0) }];
    const copied = await load.copyCsv(
      layout.names.map((_, i) => i + 1),
      layout.delimiter,
      parts,
    );
    try {
      if ('error' in copied) {
        await reading.catch(() => undefined);
        throw copied.error;
      }
      await reading;
      const split = await splitting;
      if (split && copied.rows[0] !== split.firstRecords - 1)
        throw new FastPathRefused('the first part holds another number of rows than counted');
      const count = copied.rows.reduce((a, b) => a + b, 0);
      const columns = fast.columns(count);
      return { columns, jsonSince: new Map(), count, total: null };
    } catch (err) {
      if ('rows' in copied) load.discard();
      logger.debug({ reason: (err as Error).message }, 'CSV read by the general reader');
    }
  }
  return writeRows(load, progress, csvRows(file, layout?.delimiter ?? ','), 'strings');
}
