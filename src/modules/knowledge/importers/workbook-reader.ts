import ExcelJS from 'exceljs';
import type { Readable } from 'node:stream';
import * as yauzl from 'yauzl';

/** The parts of ExcelJS's streaming reader this one drives (exceljs 4.4; not in its published types). */
interface ReaderParts {
  workbookRels?: { Id: string; Target: string }[];
  model?: { sheets?: { rId: string }[] };
  _parseRels(entry: Readable): Promise<void>;
  _parseWorkbook(entry: Readable): Promise<void>;
  _parseSharedStrings(entry: Readable): AsyncGenerator<unknown>;
  _parseStyles(entry: Readable): Promise<void>;
  _parseWorksheet(iterator: AsyncIterable<unknown>, sheetNo: string): Generator<unknown>;
}

const SHEET_PATH = /^xl\/worksheets\/sheet(\d+)\.xml$/;

/**
 * ExcelJS's streaming workbook reader, but reading the archive through its central directory: the relations, the
 * workbook, the shared strings and the styles first, then the worksheet, row by row. ExcelJS's own reader takes the
 * entries in stored order from a single pass whose end can come before the last entries are delivered; as ExcelJS
 * and most writers store `xl/workbook.xml` last, that reader intermittently fails a sound file.
 */
export class CentralDirectoryWorkbookReader extends ExcelJS.stream.xlsx.WorkbookReader {
  constructor(
    private readonly file: string,
    options: Partial<ExcelJS.stream.xlsx.WorkbookStreamReaderOptions>,
  ) {
    super(file, options);
  }

  /** Worksheet events only: the first sheet as the workbook lists its tabs (the lowest-numbered part when none is listed). */
  override async *parse(): AsyncIterator<{ eventType: string; value: unknown }> {
    const self = this as unknown as ReaderParts;
    const zip = await yauzl.openPromise(this.file, { lazyEntries: true, autoClose: false });
    try {
      const entries = await centralDirectory(zip);
      const read = (name: string) => {
        const entry = entries.get(name);
        return entry ? zip.openReadStreamPromise(entry) : null;
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
      zip.close();
    }
  }
}

function centralDirectory(zip: yauzl.ZipFile): Promise<Map<string, yauzl.Entry>> {
  const entries = new Map<string, yauzl.Entry>();
  return new Promise((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      entries.set(entry.fileName, entry);
      zip.readEntry();
    });
    zip.on('end', () => resolve(entries));
    zip.on('error', reject);
    zip.readEntry();
  });
}

function firstSheet(reader: ReaderParts, entries: Map<string, yauzl.Entry>): string | null {
  const first = reader.model?.sheets?.[0];
  const rel = first && reader.workbookRels?.find((r) => r.Id === first.rId);
  const listed = rel && /^(?:\/xl\/)?worksheets\/sheet(\d+)\.xml$/.exec(rel.Target);
  if (listed && entries.has(`xl/worksheets/sheet${listed[1]}.xml`)) return listed[1];
  const numbers = [...entries.keys()]
    .map((name) => SHEET_PATH.exec(name)?.[1])
    .filter((n): n is string => n !== undefined)
    .sort((a, b) => Number(a) - Number(b));
  return numbers[0] ?? null;
}
