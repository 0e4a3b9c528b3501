import { copyTextLine } from './records-load';
import {
  columnName,
  createTableSql,
  newTableName,
  qualified,
  recordJsonSql,
  recordTextSql,
} from './records-table';

describe('copyTextLine', () => {
  it('writes values as a COPY text line: tabs between, \\N for null, escapes for the specials', () => {
    expect(copyTextLine(['a', null, '3'])).toBe('a\t\\N\t3\n');
    expect(copyTextLine(['tab\there\nnew\r "q" \\ back'])).toBe('tab\\there\\nnew\\r "q" \\\\ back\n');
    // The text "\N" is a value, not null.
    expect(copyTextLine(['\\N'])).toBe('\\\\N\n');
  });
});

describe('records tables', () => {
  const id = '01936f0e-7a8b-7c3d-9e2f-1a2b3c4d5e6f';

  it('names tables from the data source and refuses any other name', () => {
    const name = newTableName(id);
    expect(name).toMatch(/^r_01936f0e7a8b7c3d9e2f1a2b3c4d5e6f_[0-9a-f]{8}$/);
    expect(newTableName(id)).not.toBe(name);
    expect(qualified(name)).toBe(`knowledge_data."${name}"`);
    expect(() => qualified('r_x"; DROP TABLE workspaces; --')).toThrow();
    expect(() => columnName(0)).toThrow();
    expect(createTableSql(name, [1, 2], false)).toContain(', c1 text, c2 text)');
  });

  it('quotes column names as literals in the record SQL', () => {
    const columns = [{ id: 1, name: "it's", type: 'number' as const }];
    expect(recordJsonSql(columns, 'r')).toContain(`'it''s'`);
    expect(recordTextSql(columns, 'r')).toContain(`'it''s: ' || r.c1`);
  });

  it('builds wide records in parts (jsonb_build_object takes at most 100 arguments)', () => {
    const columns = Array.from({ length: 90 }, (_, i) => ({
      id: i + 1,
      name: `c${i}`,
      type: 'text' as const,
    }));
    expect(recordJsonSql(columns, 'r').split('jsonb_build_object(')).toHaveLength(4);
  });
});
