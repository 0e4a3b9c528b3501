import ExcelJS from 'exceljs';
import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import * as yauzl from 'yauzl';
import { ImportError } from './import-error';
import { workbookEntries } from './zip-guard';

/** The parts of ExcelJS's streaming reader this one drives (exceljs 4.4; not in its published types). */
interface ReaderParts {
  workbookRels?: { Id: string; Target: string }[];
  model?: { sheets?: { rId: string; state?: string }[] };
  _parseRels(entry: Readable): Promise<void>;
  _parseWorkbook(entry: Readable): Promise<void>;
  _parseSharedStrings(entry: Readable): AsyncGenerator<unknown>;
  _parseStyles(entry: Readable): Promise<void>;
  _parseWorksheet(iterator: AsyncIterable<unknown>, sheetNo: string): Generator<unknown>;
}

const SHEET_PATH = /^xl\/worksheets\/sheet(\d+)\.xml$/;

/**
 * ExcelJS's streaming workbook reader, but reading the archive through its central directory (which refuses
 * decompression bombs and archives that are not workbooks: zip-guard.ts): the relations, the workbook, the shared
 * strings and the styles first, then the worksheet, row by row. ExcelJS's own reader takes the
 * entries in stored order from a single pass whose end can come before the last entries are delivered; as ExcelJS
 * and most writers store `xl/workbook.xml` last, that reader intermittently fails a sound file. Only what the
 * knowledge import needs: the file it was made with (not `parse`'s arguments), cached shared strings and styles, one
 * worksheet, no hyperlinks. It drives ExcelJS's private parsers: `exceljs` is pinned to the version they were read in.
 */
export class CentralDirectoryWorkbookReader extends ExcelJS.stream.xlsx.WorkbookReader {
  constructor(
    private readonly file: string,
    options: Partial<ExcelJS.stream.xlsx.WorkbookStreamReaderOptions>,
  ) {
    super(file, options);
  }

  /**
   * Worksheet events only: the first worksheet as the workbook lists its tabs (visible before hidden; the
   * lowest-numbered part when none is listed).
   */
  override async *parse(): AsyncIterator<{ eventType: string; value: unknown }> {
    const self = this as unknown as ReaderParts;
    const zip = await yauzl
      .openPromise(this.file, { lazyEntries: true, autoClose: false })
      .catch((err: Error) => {
        throw new ImportError(`invalid Excel workbook: ${err.message}`);
      });
    const opened: Readable[] = [];
    try {
      const entries = await workbookEntries(zip);
      const read = async (name: string) => {
        const entry = entries.get(name);
        if (!entry) return null;
        const stream = await zip.openReadStreamPromise(entry);
        opened.push(stream);
        // Text, not bytes: ExcelJS decodes each chunk on its own, so a character split across two chunks was lost.
        stream.setEncoding('utf8');
        return stream;
      };
      const rels = await read('xl/_rels/workbook.xml.rels');
      if (rels) await self._parseRels(rels);
      const workbook = await read('xl/workbook.xml');
      if (workbook) await self._parseWorkbook(workbook);
      const strings = await read('xl/sharedStrings.xml');
      if (strings) for await (const _ of self._parseSharedStrings(strings));
      const styles = await read('xl/styles.xml');
      if (styles) await self._parseStyles(styles);
      const sheetNo = firstSheet(self, entries);
      if (sheetNo === null) return;
      const sheet = await read(`xl/worksheets/sheet${sheetNo}.xml`);
      if (sheet)
        yield* self._parseWorksheet(sheet, sheetNo) as Generator<{ eventType: string; value: unknown }>;
    } finally {
      // A part whose parser stopped on an error is not read to its end: yauzl keeps the file open until it is
      // destroyed (zip.close() alone does not close it).
      for (const stream of opened) stream.destroy();
      zip.close();
    }
  }
}

function firstSheet(reader: ReaderParts, entries: Map<string, yauzl.Entry>): string | null {
  const parts: { sheetNo: string; hidden: boolean }[] = [];
  for (const tab of reader.model?.sheets ?? []) {
    const target = reader.workbookRels?.find((r) => r.Id === tab.rId)?.Target;
    if (!target) continue;
    // A relationship's target is relative to xl/ unless it starts at the archive's root.
    const part = target.startsWith('/') ? target.slice(1) : posix.normalize(`xl/${target}`);
    const sheetNo = SHEET_PATH.exec(part)?.[1];
    if (sheetNo !== undefined && entries.has(part))
      parts.push({ sheetNo, hidden: tab.state === 'hidden' || tab.state === 'veryHidden' });
  }
  const listed = parts.find((p) => !p.hidden) ?? parts[0];
  if (listed) return listed.sheetNo;
  const numbers = [...entries.keys()]
    .map((name) => SHEET_PATH.exec(name)?.[1])
    .filter((n): n is string => n !== undefined)
    .sort((a, b) => Number(a) - Number(b));
  return numbers[0] ?? null;
}
