import ExcelJS from 'exceljs';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as yauzl from 'yauzl';
import { excelRows } from './row-sources';
import { workbookEntries } from './zip-guard';

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

  const rowsOf = async (path: string) => {
    const rows: Record<string, unknown>[] = [];
    for await (const row of excelRows(path)) rows.push({ ...row });
    return rows;
  };

  /** The archive's entries in stored order (its central directory). */
  const entriesOf = async (path: string) => {
    const zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false });
    try {
      return await workbookEntries(zip);
    } finally {
      zip.close();
    }
  };

  it('stores the workbook part after the worksheets (what a single stored-order pass cannot rely on)', async () => {
    const names = [...(await entriesOf(file)).keys()];
    expect(names.indexOf('xl/workbook.xml')).toBeGreaterThan(names.indexOf('xl/worksheets/sheet1.xml'));
    expect(names.indexOf('xl/sharedStrings.xml')).toBeGreaterThan(names.indexOf('xl/worksheets/sheet1.xml'));
  });

  it('reads the first sheet with shared strings and dates, every time, many reads at once', async () => {
    const expected = [
      { Plan: 'Basic', Monthly: 10, Start: '2026-01-01T00:00:00.000Z' },
      { Plan: 'Pro', Monthly: 25.5, Start: '2026-02-01T00:00:00.000Z' },
    ];
    for (let round = 0; round < 25; round++) {
      const results = await Promise.all(Array.from({ length: 8 }, () => rowsOf(file)));
      for (const rows of results) expect(rows).toEqual(expected);
    }
  });

  it('keeps text whose characters fall across the chunks the archive is inflated in', async () => {
    const wb = new ExcelJS.Workbook();
    const sheet = wb.addWorksheet('Greetings');
    sheet.addRow(['n', 'text']);
    // Two- and three-byte characters (ExcelJS's writer itself can split a surrogate pair).
    const text = (n: number) => `Grüße ${n} — €${n % 97} ñandú 日本`;
    for (let n = 0; n < 20_000; n++) sheet.addRow([n, text(n)]);
    const path = join(dir, 'greetings.xlsx');
    writeFileSync(path, Buffer.from(await wb.xlsx.writeBuffer()));
    const rows = await rowsOf(path);
    expect(rows).toHaveLength(20_000);
    expect(rows.filter((r) => r.text !== text(r.n as number))).toEqual([]);
  });

  it('reads the first tab as the workbook orders them, a visible one before a hidden one', async () => {
    const wb = new ExcelJS.Workbook();
    const archive = wb.addWorksheet('Archive', { state: 'hidden' });
    archive.addRow(['kind']);
    archive.addRow(['archived']);
    const later = wb.addWorksheet('Later');
    later.addRow(['kind']);
    later.addRow(['later']);
    const first = wb.addWorksheet('First');
    first.addRow(['kind']);
    first.addRow(['first']);
    // Tab order: Archive (hidden), First, Later; the parts are sheet1, sheet3, sheet2 (`orderNo`, not in ExcelJS's types).
    const order = (ws: ExcelJS.Worksheet, n: number) => ((ws as unknown as { orderNo: number }).orderNo = n);
    order(archive, 0);
    order(first, 1);
    order(later, 2);
    const path = join(dir, 'tabs.xlsx');
    writeFileSync(path, Buffer.from(await wb.xlsx.writeBuffer()));
    expect(await rowsOf(path)).toEqual([{ kind: 'first' }]);
  });

  it('fails a workbook with a damaged part with the import error and leaves no file open', async () => {
    const wb = new ExcelJS.Workbook();
    const sheet = wb.addWorksheet('Words');
    sheet.addRow(['word']);
    for (let n = 0; n < 20_000; n++) sheet.addRow([`word ${n} ${(n * 7919) % 10007}`]);
    const path = join(dir, 'damaged.xlsx');
    const bytes = Buffer.from(await wb.xlsx.writeBuffer());
    writeFileSync(path, bytes);
    // Garble the middle of the shared strings' compressed data (after the part's local header).
    const entry = (await entriesOf(path)).get('xl/sharedStrings.xml')!;
    const header = entry.relativeOffsetOfLocalHeader;
    const data = header + 30 + bytes.readUInt16LE(header + 26) + bytes.readUInt16LE(header + 28);
    const damaged = Buffer.from(readFileSync(path));
    damaged.fill(
      0x5a,
      data + Math.floor(entry.compressedSize / 2),
      data + Math.floor(entry.compressedSize / 2) + 64,
    );
    writeFileSync(path, damaged);
    const open = () => readdirSync('/proc/self/fd').length;
    const before = open();
    for (let i = 0; i < 5; i++) await expect(rowsOf(path)).rejects.toThrow(/not a readable Excel workbook/);
    // Closing a file is asynchronous: give the last one a moment.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(open()).toBeLessThanOrEqual(before);
  });

  it('fails a cut-off archive with the import error', async () => {
    const broken = join(dir, 'broken.xlsx');
    const zipped = Buffer.from(await new ExcelJS.Workbook().xlsx.writeBuffer());
    writeFileSync(broken, zipped.subarray(0, zipped.length - 40));
    await expect(rowsOf(broken)).rejects.toThrow(/^invalid Excel workbook: /);
  });
});
