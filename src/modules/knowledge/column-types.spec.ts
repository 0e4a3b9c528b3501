import { chunkText } from './chunking';
import { SchemaInference, StringColumnTypes } from './column-inference';
import { checkRecord, Column, decodeValue, encodeValue } from './column-types';

describe('checkRecord', () => {
  const columns: Column[] = [
    { id: 1, name: 'name', type: 'text' },
    { id: 2, name: 'price', type: 'number' },
    { id: 3, name: 'since', type: 'date' },
    { id: 4, name: 'active', type: 'boolean' },
    { id: 5, name: 'meta', type: 'json' },
    { id: 6, name: 'site', type: 'url' },
  ];

  it('accepts values of the right types and nulls', () => {
    const ok = {
      name: 'a',
      price: 1.5,
      since: '2026-01-02',
      active: true,
      meta: { a: [1] },
      site: 'https://x.io',
    };
    expect(checkRecord(columns, ok)).toEqual([]);
    expect(checkRecord(columns, { name: null, price: null })).toEqual([]);
  });

  it('names each column with a wrong value', () => {
    const problems = checkRecord(columns, {
      price: '12',
      since: 'yesterday',
      active: 'yes',
      site: 'ftp://x',
    });
    expect(problems.map((p) => [p.code, p.column])).toEqual([
      ['INVALID_FORMAT', 'price'],
      ['INVALID_FORMAT', 'since'],
      ['INVALID_FORMAT', 'active'],
      ['INVALID_FORMAT', 'site'],
    ]);
    expect(checkRecord(columns, { nope: 1 })[0]).toMatchObject({ code: 'VALIDATION_ERROR', column: 'nope' });
  });
});

describe('SchemaInference', () => {
  it('infers types from text values and keeps the text', () => {
    const s = new SchemaInference('strings', 2);
    expect(s.push({ id: '1', ok: 'true', day: '2026-01-01', web: 'https://a.b', name: 'x' })).toEqual([]);
    const rows = s.push({ id: '2', ok: 'FALSE', day: '2026-01-02', web: 'http://c.d/e', name: '3' });
    expect(s.columns.map((c) => c.type)).toEqual(['number', 'boolean', 'date', 'url', 'text']);
    expect({ ...rows[0] }).toEqual({ id: '1', ok: 'true', day: '2026-01-01', web: 'https://a.b', name: 'x' });
  });

  it('widens a column to text when a later value does not fit', () => {
    const s = new SchemaInference('strings', 1);
    s.push({ n: '1' });
    const [row] = s.push({ n: 'abc' });
    expect(row.n).toBe('abc');
    expect(s.columns[0].type).toBe('text');
  });

  it('notes how many rows were written before a string column turned into json', () => {
    const s = new SchemaInference('typed', 1);
    s.push({ a: 'x', b: 1 });
    s.push({ a: 'y', b: 2 });
    s.push({ a: { nested: true }, b: { nested: true } });
    expect(s.columns.map((c) => c.type)).toEqual(['json', 'json']);
    // Two rows held `a` as plain text; `b` held numbers, which are JSON already.
    expect([...s.jsonSince]).toEqual([['a', 2]]);
  });

  it('keeps typed values and drops __proto__ keys', () => {
    const s = new SchemaInference('typed');
    const polluted = JSON.parse('{"a": 1, "__proto__": {"polluted": true}, "b": {"c": 2}}') as Record<
      string,
      unknown
    >;
    s.push(polluted);
    const [row] = s.flush();
    expect(s.columns.map((c) => [c.name, c.type])).toEqual([
      ['a', 'number'],
      ['b', 'json'],
    ]);
    expect(Object.keys(row)).toEqual(['a', 'b']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('chunkText', () => {
  it('keeps short text whole and cuts long text on boundaries', () => {
    expect(chunkText('Hello world.')).toEqual(['Hello world.']);
    const text = Array.from({ length: 200 }, (_, i) => `Sentence number ${i} is here.`).join(' ');
    const chunks = chunkText(text, 300);
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(300);
    expect(chunks[0].endsWith('.')).toBe(true);
    expect(chunks.join(' ').replace(/\s+/g, ' ')).toBe(text);
  });
});

describe('stored values', () => {
  it('stores scalars as their text and json as JSON, and reads them back by type', () => {
    expect(encodeValue('number', 19.5)).toBe('19.5');
    expect(encodeValue('boolean', false)).toBe('false');
    expect(encodeValue('text', 'a\u0000b')).toBe('ab');
    expect(encodeValue('json', { a: [1, 'x\u0000'] })).toBe('{"a":[1,"x"]}');
    expect(encodeValue('json', 'plain')).toBe('"plain"');
    expect(encodeValue('text', null)).toBeNull();
    expect(decodeValue('number', '19.5')).toBe(19.5);
    expect(decodeValue('number', ' 7 ')).toBe(7);
    expect(decodeValue('boolean', 'TRUE')).toBe(true);
    expect(decodeValue('json', '{"a":[1]}')).toEqual({ a: [1] });
    expect(decodeValue('date', '2026-01-02')).toBe('2026-01-02');
    expect(decodeValue('number', null)).toBeNull();
    // Text that does not read as its type is answered as it is, never as NaN.
    expect(decodeValue('number', 'abc')).toBe('abc');
    expect(decodeValue('json', '{bad')).toBe('{bad');
  });
});

describe('StringColumnTypes', () => {
  it('decides types as SchemaInference does for strings: the sample chooses, later misfits turn to text', () => {
    const rows = [
      ['1', 'true', '2026-01-01', 'https://a.b', 'x', ''],
      ['2', 'FALSE', '2026-01-02', 'http://c.d/e', '3', ''],
      ['3', 'true', 'soon', 'https://e.f', 'y', '5'],
    ];
    const fast = new StringColumnTypes(6, 2);
    const general = new SchemaInference('strings', 2);
    const keys = ['id', 'ok', 'day', 'web', 'name', 'late'];
    for (const r of rows) {
      fast.push(r);
      general.push(Object.fromEntries(keys.map((k, i) => [k, r[i]])));
    }
    general.flush();
    expect(fast.result()).toEqual(['number', 'boolean', 'text', 'url', 'text', 'text']);
    expect(fast.result()).toEqual(general.columns.map((c) => c.type));
    expect(fast.rows).toBe(3);
  });
});
