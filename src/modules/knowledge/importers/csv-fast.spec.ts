import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { csvLayout, csvSplit, feedNumbered } from './csv-fast';

describe('csvLayout', () => {
  it('finds the delimiter and the header in the first line', () => {
    expect(csvLayout(Buffer.from('\uFEFFid,name,price\r\n1,a,2\r\n'))).toEqual({
      delimiter: ',',
      names: ['id', 'name', 'price'],
      newline: '\r\n',
    });
    expect(csvLayout(Buffer.from('a;b;c,d\n1;2;3\n'))).toMatchObject({
      delimiter: ';',
      names: ['a', 'b', 'c,d'],
    });
    expect(csvLayout(Buffer.from('a\tb\n1\t2\n'))).toMatchObject({ delimiter: '\t', names: ['a', 'b'] });
    expect(csvLayout(Buffer.from('"x, y",,x\n1,2,3\n'))).toMatchObject({ names: ['x, y', 'column_2', 'x'] });
  });

  it('leaves a header it cannot see whole to the general reader', () => {
    expect(csvLayout(Buffer.from('no line end yet'))).toBeNull();
    expect(csvLayout(Buffer.from('"a\nb",c\n1,2\n'))).toBeNull();
  });
});

describe('csvSplit and feedNumbered', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'csv-split-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (text: string) => {
    const file = path.join(dir, `${Math.random()}.csv`);
    fs.writeFileSync(file, text);
    return file;
  };

  it('cuts at the first line break after the middle that is outside quotes', async () => {
    // The middle falls inside a quoted field holding line breaks: the cut comes after that record.
    const text = `a,b\n1,x\n2,"y\n\n\n\n\n\n\n\n\n\n\nz"\n3,w\n4,v\n`;
    const split = (await csvSplit(write(text), 0))!;
    expect(text.slice(0, split.cut)).toBe(`a,b\n1,x\n2,"y\n\n\n\n\n\n\n\n\n\n\nz"\n`);
    expect(split.firstRecords).toBe(3);
    // Escaped quotes ("") keep the count even.
    const escaped = `a,b\n2,"x""\n""y"\n3,z\n4,w\n5,v\n`;
    const at = (await csvSplit(write(escaped), 0))!;
    expect(escaped.slice(at.cut)).toBe(`3,z\n4,w\n5,v\n`);
    expect(at.firstRecords).toBe(2);
  });

  it('does not cut small files, or files with no line break past the middle', async () => {
    expect(await csvSplit(write('a,b\n1,2\n'))).toBeNull();
    expect(await csvSplit(write('a,b\n"1,2\n3,4'), 0)).toBeNull();
  });

  it('numbers the records of the second part, line breaks in quotes included', async () => {
    const file = write('a,b\n1,"x\ny"\r\n2,"say ""hi\n"""\n3,z');
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    await feedNumbered(file, out, 4, 7, ';');
    expect(Buffer.concat(chunks).toString()).toBe('7;1,"x\ny"\r\n8;2,"say ""hi\n"""\n9;3,z');
  });
});
