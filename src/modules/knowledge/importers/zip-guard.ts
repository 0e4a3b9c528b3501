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
 * Reads only the central directory of an .xlsx (nothing is inflated) and refuses decompression bombs and
 * archives that are not workbooks.
 */
export async function checkWorkbookArchive(file: string, limits = ZIP_LIMITS): Promise<void> {
  let zip: yauzl.ZipFile;
  try {
    zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.open(file, { lazyEntries: true, autoClose: true }, (err, z) => (err ? reject(err) : resolve(z))),
    );
  } catch (err) {
    throw new ImportError(`invalid Excel workbook: ${(err as Error).message}`);
  }
  let total = 0;
  let count = 0;
  let workbook = false;
  await new Promise<void>((resolve, reject) => {
    const fail = (message: string) => {
      zip.close();
      reject(new ImportError(message));
    };
    zip.on('entry', (entry: yauzl.Entry) => {
      count++;
      total += entry.uncompressedSize;
      if (entry.fileName === 'xl/workbook.xml') workbook = true;
      const ratio = entry.uncompressedSize / Math.max(entry.compressedSize, 1);
      if (count > limits.maxEntries) return fail('refused: the archive has too many entries');
      if (total > limits.maxTotalUncompressed)
        return fail('refused: the workbook would inflate past the size limit (a decompression bomb)');
      if (entry.uncompressedSize > limits.ratioCheckAbove && ratio > limits.maxRatio)
        return fail(`refused: ${entry.fileName} compresses ${Math.round(ratio)}:1 (a decompression bomb)`);
      zip.readEntry();
    });
    zip.on('end', () => resolve());
    zip.on('error', (err: Error) => reject(new ImportError(`invalid Excel workbook: ${err.message}`)));
    zip.readEntry();
  });
  if (!workbook) throw new ImportError('the archive is not an Excel workbook (.xlsx)');
}
