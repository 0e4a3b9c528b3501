import ExcelJS from 'exceljs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as yauzl from 'yauzl';
import { excelRows } from './row-sources';

describe('Excel rows (central-directory reader)', () => {
  let dir: string;
  let file: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'workbook-'));
    file = join(dir, 'plans.xlsx');
    const wb = new ExcelJS.Workbook();
    const sheet = wb.addWorksheet('Prices');
    sheet.addRow(['Plan', 'Monthly', 'Start']);
    sheet.addRow(['Basic', 10, new Date('2026-01-01T00:00:00Z')]);
    sheet.addRow(['Pro', 25.5, new Date('2026-02-01T00:00:00Z')]);
    wb.addWorksheet('Other').addRow(['Ignored']);
    writeFileSync(file, Buffer.from(await wb.xlsx.writeBuffer()));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const read = async () => {
    const rows: unknown[] = [];
    for await (const row of excelRows(file)) rows.push({ ...row });
    return rows;
  };

  it('stores the workbook part after the worksheets (what a single stored-order pass cannot rely on)', async () => {
    const zip = await yauzl.openPromise(file, { lazyEntries: true });
    const names: string[] = [];
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (e: yauzl.Entry) => {
        names.push(e.fileName);
        zip.readEntry();
      });
      zip.on('end', resolve);
      zip.on('error', reject);
      zip.readEntry();
    });
    expect(names.indexOf('xl/workbook.xml')).toBeGreaterThan(names.indexOf('xl/worksheets/sheet1.xml'));
    expect(names.indexOf('xl/sharedStrings.xml')).toBeGreaterThan(names.indexOf('xl/worksheets/sheet1.xml'));
  });

  it('reads the first sheet with shared strings and dates, every time, many reads at once', async () => {
    const expected = [
      { Plan: 'Basic', Monthly: 10, Start: '2026-01-01T00:00:00.000Z' },
      { Plan: 'Pro', Monthly: 25.5, Start: '2026-02-01T00:00:00.000Z' },
    ];
    for (let round = 0; round < 25; round++) {
      const results = await Promise.all(Array.from({ length: 8 }, read));
      for (const rows of results) expect(rows).toEqual(expected);
    }
  });

  it('fails a damaged workbook with the import error', async () => {
    const broken = join(dir, 'broken.xlsx');
    const zipped = Buffer.from(await new ExcelJS.Workbook().xlsx.writeBuffer());
    writeFileSync(broken, zipped.subarray(0, zipped.length - 40));
    const rows: unknown[] = [];
    await expect(
      (async () => {
        for await (const row of excelRows(broken)) rows.push(row);
      })(),
    ).rejects.toThrow(/not a readable Excel workbook/);
  });
});
