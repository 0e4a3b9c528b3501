import { copyLine } from './records.repository';

describe('copyLine', () => {
  it('writes JSON as a COPY text field, backslashes doubled and NUL escapes removed', () => {
    expect(copyLine('w', 'd', { a: 'x' })).toBe('w\td\t{"a":"x"}\n');
    expect(copyLine('w', 'd', { a: 'tab\there\nnew "q" \\ back' })).toBe(
      'w\td\t{"a":"tab\\\\there\\\\nnew \\\\"q\\\\" \\\\\\\\ back"}\n',
    );
    expect(copyLine('w', 'd', { a: 'nul\u0000byte' })).toBe('w\td\t{"a":"nulbyte"}\n');
    // A literal backslash followed by "u0000" text is kept.
    expect(copyLine('w', 'd', { a: '\\u0000' })).toBe('w\td\t{"a":"\\\\\\\\u0000"}\n');
  });
});
