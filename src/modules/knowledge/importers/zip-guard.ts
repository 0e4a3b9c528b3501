import * as yauzl from 'yauzl';
import { ImportError } from './import-error';

/** Past these, an archive is a decompression bomb, not a spreadsheet. */
export const ZIP_LIMITS = {
  maxEntries: 10_000,
  maxTotalUncompressed: 1024 * 1024 * 1024,
  maxRatio: 100,
  /** Small entries may compress very well (empty styles, repeated markup) without harm. */
  ratioCheckAbove: 16 * 1024 * 1024,
};

/**
 * The entries of an .xlsx by name, from its central directory alone (nothing is inflated), refusing decompression
 * bombs and archives that are not workbooks. `zip` is opened with `lazyEntries`; the caller closes it.
 */
export async function workbookEntries(
  zip: yauzl.ZipFile,
  limits = ZIP_LIMITS,
): Promise<Map<string, yauzl.Entry>> {
  const entries = new Map<string, yauzl.Entry>();
  let total = 0;
  let count = 0;
  await new Promise<void>((resolve, reject) => {
    const check = (entry: yauzl.Entry): string | null => {
      count++;
      total += entry.uncompressedSize;
      const ratio = entry.uncompressedSize / Math.max(entry.compressedSize, 1);
      if (count > limits.maxEntries) return 'refused: the archive has too many entries';
      if (total > limits.maxTotalUncompressed)
        return 'refused: the workbook would inflate past the size limit (a decompression bomb)';
      if (entry.uncompressedSize > limits.ratioCheckAbove && ratio > limits.maxRatio)
        return `refused: ${entry.fileName} compresses ${Math.round(ratio)}:1 (a decompression bomb)`;
      return null;
    };
    zip.on('entry', (entry: yauzl.Entry) => {
      entries.set(entry.fileName, entry);
      const refused = check(entry);
      if (refused) return reject(new ImportError(refused));
      zip.readEntry();
    });
    zip.on('end', () => resolve());
    zip.on('error', (err: Error) => reject(new ImportError(`invalid Excel workbook: ${err.message}`)));
    zip.readEntry();
  });
  if (!entries.has('xl/workbook.xml')) throw new ImportError('the archive is not an Excel workbook (.xlsx)');
  return entries;
}
