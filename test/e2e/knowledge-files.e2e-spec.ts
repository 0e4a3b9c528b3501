import ExcelJS from 'exceljs';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ImportsService } from '@/modules/knowledge/imports.service';
import { createAgent, synced, upload, waitFor } from '../factories/knowledge.factory';
import { useTestApp } from '../setup/suite';

/** A one-page PDF with `text`, optionally carrying a JavaScript open action. */
export function makePdf(text: string, js?: string): Buffer {
  const content = `BT /F1 24 Tf 72 700 Td (${text}) Tj ET`;
  const objects = [
    `<< /Type /Catalog /Pages 2 0 R${js ? ' /OpenAction 5 0 R /Names << /JavaScript << /Names [(x) 5 0 R] >> >>' : ''} >>`,
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 6 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    js ? `<< /S /JavaScript /JS (${js}) >>` : '<< >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) out += `${String(off).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

describe('Knowledge: file imports', () => {
  const suite = useTestApp({ storage: 'knowledge-files', tenants: ['tenant', 'other'] });

  const records = async (uuid: string) =>
    (await suite.tenant.http.get(`/api/v1/data/${uuid}/records?per_page=100`)).body.data.items.map(
      (r: { data: Record<string, unknown> }) => r.data,
    ) as Record<string, unknown>[];

  it('imports a CSV with types inferred from the data, whatever its file name', async () => {
    const csv =
      'name,price,in_stock,launched,site,notes\n' +
      'Widget,9.99,true,2026-01-02,https://x.io/w,"says ""hi"", twice"\n' +
      'Gadget,19,false,2025-12-31,https://x.io/g,\n';
    const res = await upload(suite.tenant, 'Catalogue', csv, 'catalogue.pdf');
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      type: 'file',
      status: 0,
      process: 'queued',
      path_ext: 'csv',
      path_url: 'catalogue.pdf',
    });
    const done = await waitFor(suite.tenant, res.body.data.uuid);
    expect(done).toMatchObject({ status: 2, error: null, records_count: 2, progress: { done: 2 } });
    expect(done.columns.map((c) => [c.name, c.type])).toEqual([
      ['name', 'text'],
      ['price', 'number'],
      ['in_stock', 'boolean'],
      ['launched', 'date'],
      ['site', 'url'],
      ['notes', 'text'],
    ]);
    expect(await records(res.body.data.uuid)).toEqual([
      {
        name: 'Widget',
        price: 9.99,
        in_stock: true,
        launched: '2026-01-02',
        site: 'https://x.io/w',
        notes: 'says "hi", twice',
      },
      {
        name: 'Gadget',
        price: 19,
        in_stock: false,
        launched: '2025-12-31',
        site: 'https://x.io/g',
        notes: null,
      },
    ]);
    // The typed table takes record writes checked against the inferred types.
    const bad = await suite.tenant.http
      .post(`/api/v1/data/${res.body.data.uuid}/records`)
      .send({ record: { price: 'x' } });
    expect(bad.body.error).toMatchObject({ code: 'INVALID_FORMAT', field: 'record.price' });
  });

  it('widens a column whose later values do not fit the sampled type', async () => {
    const lines = ['code,label'];
    for (let i = 0; i < 1200; i++) lines.push(`${i},item ${i}`);
    lines.push('A-1,last');
    const res = await upload(suite.tenant, 'Codes', lines.join('\n'), 'codes.csv');
    const done = await waitFor(suite.tenant, res.body.data.uuid);
    expect(done.status).toBe(2);
    expect(done.columns[0]).toMatchObject({ name: 'code', type: 'text' });
    const first = await records(res.body.data.uuid);
    expect(first[0]).toEqual({ code: '0', label: 'item 0' });
  });

  it('imports a JSON array of objects, neutralising __proto__ keys', async () => {
    const json =
      '[{"sku": "a1", "qty": 3, "tags": ["x"], "__proto__": {"polluted": true}},' +
      ' {"sku": "b2", "qty": 4, "tags": [], "constructor": {"prototype": {"polluted": true}}}]';
    const res = await upload(suite.tenant, 'Stock', json, 'stock.json');
    expect(res.body.data.path_ext).toBe('json');
    const done = await waitFor(suite.tenant, res.body.data.uuid);
    expect(done.error).toBeNull();
    expect(done.status).toBe(2);
    expect(done.columns.map((c) => [c.name, c.type])).toEqual([
      ['sku', 'text'],
      ['qty', 'number'],
      ['tags', 'json'],
      ['constructor', 'json'],
    ]);
    const rows = await records(res.body.data.uuid);
    // Every column is answered, null where the object had no such key.
    expect(rows[0]).toEqual({ sku: 'a1', qty: 3, tags: ['x'], constructor: null });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('fails a JSON that is not an array of objects with the reason', async () => {
    const res = await upload(suite.tenant, 'Bad', '{"a": 1}', 'x.json');
    const done = await waitFor(suite.tenant, res.body.data.uuid);
    expect(done).toMatchObject({
      status: 3,
      process: 'failed',
      error: 'JSON must be an array of objects',
      records_count: 0,
    });
  });

  it('imports XML records (children of the root), refusing a DOCTYPE', async () => {
    const xml =
      '<?xml version="1.0"?><products><product id="1"><name>Lamp</name><price>12.5</price></product>' +
      '<product id="2"><name><![CDATA[Desk & chair]]></name><price>80</price></product></products>';
    const res = await upload(suite.tenant, 'Products', xml, 'p.xml');
    const done = await waitFor(suite.tenant, res.body.data.uuid);
    expect(done.status).toBe(2);
    expect(done.columns.map((c) => [c.name, c.type])).toEqual([
      ['id', 'number'],
      ['name', 'text'],
      ['price', 'number'],
    ]);
    expect(await records(res.body.data.uuid)).toEqual([
      { id: 1, name: 'Lamp', price: 12.5 },
      { id: 2, name: 'Desk & chair', price: 80 },
    ]);
  });

  it('neutralises a billion-laughs XML quickly', async () => {
    const levels = ['<!ENTITY lol "lol">'];
    for (let i = 1; i <= 9; i++)
      levels.push(`<!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">`);
    const xml = `<?xml version="1.0"?><!DOCTYPE lolz [${levels.join('')}]><lolz><row><v>&lol9;</v></row></lolz>`;
    const res = await upload(suite.tenant, 'Laughs', xml, 'lol.xml');
    const done = await waitFor(suite.tenant, res.body.data.uuid);
    expect(done.status).toBe(3);
    expect(done.error).toMatch(/DOCTYPE/);
    expect(done.records_count).toBe(0);
  });

  it('imports the first sheet of an Excel workbook with typed cells', async () => {
    const wb = new ExcelJS.Workbook();
    const sheet = wb.addWorksheet('Prices');
    sheet.addRow(['Plan', 'Monthly', 'Start']);
    sheet.addRow(['Basic', 10, new Date('2026-01-01T00:00:00Z')]);
    sheet.addRow(['Pro', 25.5, new Date('2026-02-01T00:00:00Z')]);
    const buffer = Buffer.from(await wb.xlsx.writeBuffer());
    const res = await upload(suite.tenant, 'Plans', buffer, 'plans.bin');
    expect(res.body.data.path_ext).toBe('xlsx');
    const done = await waitFor(suite.tenant, res.body.data.uuid);
    expect(done).toMatchObject({ status: 2, records_count: 2 });
    expect(done.columns.map((c) => [c.name, c.type])).toEqual([
      ['Plan', 'text'],
      ['Monthly', 'number'],
      ['Start', 'date'],
    ]);
    expect((await records(res.body.data.uuid))[1]).toEqual({
      Plan: 'Pro',
      Monthly: 25.5,
      Start: '2026-02-01T00:00:00.000Z',
    });
  });

  it('imports plain text as chunks', async () => {
    const text = Array.from(
      { length: 60 },
      (_, i) => `Paragraph ${i} talks about warranty terms and care.`,
    ).join('\n\n');
    const res = await upload(suite.tenant, 'Manual', text, 'manual.txt');
    expect(res.body.data.path_ext).toBe('txt');
    const done = await waitFor(suite.tenant, res.body.data.uuid);
    expect(done.status).toBe(2);
    expect(done.records_count).toBeGreaterThan(1);
    const rows = await records(res.body.data.uuid);
    expect(rows[0]).toMatchObject({ source: 'manual.txt', position: 0 });
    expect(rows[1].position).toBe(1);
  });

  it('imports the text of a PDF and never runs its script', async () => {
    const pdf = makePdf(
      'Warranty lasts two years',
      "app.alert('owned'); this.submitForm('http://127.0.0.1:1/x');",
    );
    const res = await upload(suite.tenant, 'Warranty', pdf, 'warranty.pdf');
    expect(res.body.data.path_ext).toBe('pdf');
    const done = await waitFor(suite.tenant, res.body.data.uuid);
    expect(done).toMatchObject({ status: 2, error: null });
    const rows = await records(res.body.data.uuid);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ source: 'warranty.pdf#page=1', position: 0 });
    expect(rows[0].content).toContain('Warranty lasts two years');
    expect(JSON.stringify(rows)).not.toContain('alert');
  });

  it('fails an audio file with a clear reason when no transcription service is configured', async () => {
    const wav = Buffer.concat([
      Buffer.from('RIFF'),
      Buffer.alloc(4),
      Buffer.from('WAVEfmt '),
      Buffer.alloc(64),
    ]);
    const res = await upload(suite.tenant, 'Call', wav, 'call.wav');
    expect(res.body.data.path_ext).toBe('wav');
    const done = await waitFor(suite.tenant, res.body.data.uuid);
    expect(done).toMatchObject({ status: 3, process: 'failed' });
    expect(done.error).toMatch(/no transcription service is configured/);
  });

  it('refuses an unsupported file and a missing file or name with the short body, leaving no file', async () => {
    const uploads = path.join(suite.app.config.storageDir, 'uploads', 'tmp');
    const before = fs.readdirSync(uploads).length;
    const bin = await upload(
      suite.tenant,
      'Bin',
      Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0]),
      'old.xls',
    );
    expect(bin.status).toBe(422);
    expect(bin.body).toEqual({
      success: false,
      message: expect.stringContaining('file type is not supported'),
      data: [],
    });
    const none = await suite.tenant.http.post('/api/v1/data/import/file').field('description', 'x');
    expect(none.status).toBe(422);
    expect(none.body).toEqual({
      success: false,
      message: expect.stringMatching(/^name .* \| file is required$/),
      data: [],
    });
    const noName = await suite.tenant.http
      .post('/api/v1/data/import/file')
      .attach('file', Buffer.from('a,b\n1,2\n'), 'a.csv');
    expect(noName.status).toBe(422);
    expect(noName.body.data).toEqual([]);
    expect(fs.readdirSync(uploads).length).toBe(before);
    const text = await suite.tenant.http
      .post('/api/v1/data/import/file')
      .set('Content-Type', 'text/plain')
      .send('x');
    expect(text.status).toBe(400);
    expect(text.body.error.code).toBe('BAD_REQUEST');
  });

  it('ignores a file under another field name: file is then missing (422), beside file it is dropped', async () => {
    const uploads = path.join(suite.app.config.storageDir, 'uploads', 'tmp');
    const post = (name: string, ...files: [field: string, content: string, fileName: string][]) =>
      files.reduce(
        (req, [field, content, fileName]) => req.attach(field, Buffer.from(content), fileName),
        suite.tenant.http.post('/api/v1/data/import/file').field('name', name),
      );
    const wrong = await post('Wrong field', ['upload', 'a,b\n1,2\n', 'a.csv']);
    expect(wrong.status).toBe(422);
    expect(wrong.body).toEqual({ success: false, message: 'file is required', data: [] });
    const both = await post(
      'Extra file',
      ['notes', 'not a table', 'notes.txt'],
      ['file', 'a,b\n1,2\n', 'a.csv'],
    );
    expect(both.status).toBe(201);
    expect(both.body.data).toMatchObject({ path_ext: 'csv', path_url: 'a.csv' });
    const twice = await post('Two files', ['file', 'a,b\n1,2\n', 'a.csv'], ['file', 'a,b\n3,4\n', 'b.csv']);
    expect(twice.status).toBe(422);
    expect(twice.body).toEqual({ success: false, message: 'file must be a single file', data: [] });
    await waitFor(suite.tenant, both.body.data.uuid);
    expect(fs.readdirSync(uploads)).toEqual([]);
  });

  it('re-running an import replaces its rows instead of duplicating them', async () => {
    const res = await upload(suite.tenant, 'Twice', 'a,b\n1,2\n3,4\n', 'twice.csv');
    await waitFor(suite.tenant, res.body.data.uuid);
    const imports = suite.app.get<ImportsService>(ImportsService);
    // The uploaded file is gone after the first run, so a second run of a file import would fail; a paste re-runs.
    const paste = await suite.tenant.http
      .post('/api/v1/data/import/copypaste')
      .send({ name: 'P', data: 'Hello there.' });
    await waitFor(suite.tenant, paste.body.data.uuid);
    await imports.run(suite.tenant.workspaceId, paste.body.data.uuid, true);
    const again = await waitFor(suite.tenant, paste.body.data.uuid);
    expect(again).toMatchObject({ status: 2, records_count: 1 });
  });

  it('makes an imported file searchable after assign and sync; other workspaces see nothing', async () => {
    const res = await upload(
      suite.tenant,
      'FAQ',
      'question,answer\nHow long is delivery?,Three working days\n',
      'faq.csv',
    );
    const id = res.body.data.uuid as string;
    await waitFor(suite.tenant, id);
    const agent = await createAgent(suite.app, suite.tenant);
    await suite.tenant.http.post(`/api/v1/data/${id}/assign`).send({ agent_uuid: agent.id });
    await suite.tenant.http.post(`/api/v1/data/${id}/sync`);
    await waitFor(suite.tenant, id, synced);
    const hits = await suite.tenant.http.get(`/api/v1/agents/${agent.id}/knowledge/search?q=delivery`);
    expect(hits.body.data[0]).toMatchObject({
      data_source: { uuid: id },
      record: { data: { answer: 'Three working days' } },
    });
    expect((await suite.other.http.get(`/api/v1/data/${id}`)).status).toBe(404);
    expect(
      (await suite.other.http.get(`/api/v1/agents/${agent.id}/knowledge/search?q=delivery`)).status,
    ).toBe(404);
  });
  it('Idempotency-Key on an upload covers the file: the same file replays, another file is 422, no file is left', async () => {
    const uploads = path.join(suite.app.config.storageDir, 'uploads', 'tmp');
    const key = `upload-${Date.now()}`;
    const send = (content: string) =>
      upload(suite.tenant, 'Keyed', content, 'keyed.csv').set('Idempotency-Key', key);
    const first = await send('a,b\n1,2\n');
    expect(first.status).toBe(201);
    const again = await send('a,b\n1,2\n');
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data.uuid).toBe(first.body.data.uuid);
    const other = await send('a,b\n3,4\n');
    expect(other.status).toBe(422);
    expect(other.body).toEqual({
      success: false,
      message: expect.stringContaining('Idempotency-Key'),
      data: [],
    });
    const list = await suite.tenant.http.get('/api/v1/data?per_page=100');
    expect(list.body.data.items.filter((d: any) => d.name === 'Keyed')).toHaveLength(1);
    await waitFor(suite.tenant, first.body.data.uuid);
    expect(fs.readdirSync(uploads)).toEqual([]);
  });
});
