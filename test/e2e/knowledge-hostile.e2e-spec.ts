import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { streamUpload, upload, waitFor } from '../factories/knowledge.factory';
import { useTestApp } from '../setup/suite';

/** Deflates `size` zero bytes without holding them: a few hundred KB that inflate to `size`. */
async function deflatedZeros(size: number): Promise<Buffer> {
  const deflate = zlib.createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (c: Buffer) => out.push(c));
  const block = Buffer.alloc(1024 * 1024);
  for (let done = 0; done < size; done += block.length) {
    if (!deflate.write(block)) await new Promise((r) => deflate.once('drain', r));
  }
  await new Promise((r) => deflate.end(r));
  return Buffer.concat(out);
}

/** A zip archive of the given entries (name, stored or deflated data, declared uncompressed size). */
function zip(entries: { name: string; data: Buffer; size: number; deflated: boolean }[]): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(e.deflated ? 8 : 0, 8);
    local.writeUInt32LE(0, 14);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.size, 22);
    local.writeUInt16LE(name.length, 26);
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE(20, 4);
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(e.deflated ? 8 : 0, 10);
    cd.writeUInt32LE(0, 16);
    cd.writeUInt32LE(e.data.length, 20);
    cd.writeUInt32LE(e.size, 24);
    cd.writeUInt16LE(name.length, 28);
    cd.writeUInt32LE(offset, 42);
    parts.push(local, name, e.data);
    central.push(cd, name);
    offset += 30 + name.length + e.data.length;
  }
  const cdBuf = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cdBuf.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, cdBuf, end]);
}

describe('Knowledge: hostile inputs', () => {
  const suite = useTestApp({ storage: 'knowledge-hostile', tenants: ['tenant'] });

  it('refuses a zip bomb disguised as .xlsx without inflating it', async () => {
    const workbook = Buffer.from('<workbook/>');
    const size = 512 * 1024 * 1024;
    const bomb = zip([
      { name: '[Content_Types].xml', data: Buffer.from('<Types/>'), size: 8, deflated: false },
      { name: 'xl/workbook.xml', data: workbook, size: workbook.length, deflated: false },
      { name: 'xl/worksheets/sheet1.xml', data: await deflatedZeros(size), size, deflated: true },
    ]);
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    const res = await upload(suite.tenant, 'Bomb', bomb, 'prices.xlsx');
    expect(res.status).toBe(201);
    expect(res.body.data.path_ext).toBe('xlsx');
    const done = await waitFor(suite.tenant, res.body.data.uuid);
    expect(done).toMatchObject({ status: 3, process: 'failed', records_count: 0 });
    expect(done.error).toMatch(/decompression bomb/);
  });

  it('refuses a zip that is not a workbook', async () => {
    const archive = zip([{ name: 'hello.txt', data: Buffer.from('hi'), size: 2, deflated: false }]);
    const res = await upload(suite.tenant, 'Zip', archive, 'x.xlsx');
    const done = await waitFor(suite.tenant, res.body.data.uuid);
    expect(done).toMatchObject({ status: 3, error: 'the archive is not an Excel workbook (.xlsx)' });
  });

  it('a failed workbook speaks of the file, never of the code that read it', async () => {
    // A cell refers to a style that the (empty) style sheet does not have: the reader trips over it.
    const entry = (name: string, text: string) => ({
      name,
      data: Buffer.from(text),
      size: Buffer.byteLength(text),
      deflated: false,
    });
    const archive = zip([
      entry('xl/workbook.xml', '<workbook/>'),
      entry('xl/styles.xml', '<styleSheet/>'),
      entry(
        'xl/worksheets/sheet1.xml',
        '<worksheet><sheetData><row r="1"><c r="A1" s="1"><v>5</v></c></row></sheetData></worksheet>',
      ),
    ]);
    const res = await upload(suite.tenant, 'Broken workbook', archive, 'x.xlsx');
    const done = await waitFor(suite.tenant, res.body.data.uuid);
    expect(done).toMatchObject({ status: 3, process: 'failed', records_count: 0 });
    expect(done.error).not.toMatch(/Cannot read|undefined|TypeError|properties/);
    expect(done.error).toBe('the file is not a readable Excel workbook (.xlsx): its content is damaged');
  });

  it('refuses a CSV whose header is wider than the 1000-column limit, naming the limit', async () => {
    // A million columns: the header alone is longer than the part of the file read to tell its kind.
    const huge = Array.from({ length: 1_000_000 }, (_, i) => `c${i}`).join(',') + '\n1,2\n';
    const wide = await upload(suite.tenant, 'Wide', huge, 'wide.csv');
    expect(wide.status).toBe(422);
    expect(wide.body.message).toMatch(/more than 1000 columns/);
    // Just over the limit, with the header's end in sight.
    const over = Array.from({ length: 1001 }, (_, i) => `c${i}`).join(',') + '\n' + '1,'.repeat(1000) + '1\n';
    const res = await upload(suite.tenant, 'Over', over, 'over.csv');
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/more than 1000 columns/);
    const list = await suite.tenant.http.get('/api/v1/data?per_page=100').expect(200);
    expect(list.body.data.items.map((d: { name: string }) => d.name)).not.toEqual(
      expect.arrayContaining(['Wide', 'Over']),
    );
  });

  it('answers 413 to a CSV of 128 MB + 1 byte and leaves no file behind', async () => {
    const tmp = path.join(suite.app.config.storageDir, 'uploads', 'tmp');
    const before = fs.readdirSync(tmp).length;
    const res = await streamUpload(suite.app, suite.tenant, 128 * 1024 * 1024 + 1);
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ success: false, error: { code: 'PAYLOAD_TOO_LARGE' } });
    expect(fs.readdirSync(tmp).length).toBe(before);
    const list = await suite.tenant.http.get('/api/v1/data');
    expect(list.body.data.items.some((d: { name: string }) => d.name === 'Big')).toBe(false);
  }, 120_000);

  it('fails a CSV import broken after many rows with the reason and no rows', async () => {
    const good = Array.from({ length: 3000 }, (_, i) => `${i},row ${i}`).join('\n');
    const res = await upload(
      suite.tenant,
      'Broken',
      `a,b\n${good}\n1,"${'x'.repeat(1024 * 1024 + 10)}"\n`,
      'broken.csv',
    );
    const done = await waitFor(suite.tenant, res.body.data.uuid);
    expect(done).toMatchObject({ status: 3, records_count: 0 });
    expect(done.error).toMatch(/invalid CSV/);
  });

  it('refuses an XML external entity', async () => {
    const xml =
      '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r><i><v>&x;</v></i></r>';
    const res = await upload(suite.tenant, 'XXE', xml, 'x.xml');
    const done = await waitFor(suite.tenant, res.body.data.uuid);
    expect(done).toMatchObject({ status: 3, records_count: 0 });
    expect(done.error).toMatch(/DOCTYPE/);
  });
});
