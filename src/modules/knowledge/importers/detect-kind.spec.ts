import { detectKind } from './detect-kind';

describe('detectKind', () => {
  const k = (b: Buffer | string) => detectKind(Buffer.isBuffer(b) ? b : Buffer.from(b))?.kind ?? null;

  it('reads the kind from the bytes', () => {
    expect(k('%PDF-1.7\n')).toBe('pdf');
    expect(k(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0]))).toBe('xlsx');
    expect(k(Buffer.from('ID3\x03\x00', 'latin1'))).toBe('audio');
    expect(k(Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WAVEfmt ')]))).toBe('audio');
    expect(k('<?xml version="1.0"?><a/>')).toBe('xml');
    expect(k('  [{"a": 1}]')).toBe('json');
    expect(k('a,b,c\n1,2,3\n4,5,6\n')).toBe('csv');
    expect(k('a;b\n1;2\n')).toBe('csv');
    // A quoted field may hold line breaks.
    expect(k('a,b\n1,"two\nlines"\n3,4\n')).toBe('csv');
    expect(k('a,b\n1,2')).toBe('csv');
    expect(k('Just some words.\nAnd more words, with a comma.\n')).toBe('txt');
  });

  it('refuses binary it does not know', () => {
    expect(k(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]))).toBeNull();
    expect(k(Buffer.from([0x00, 0x01, 0x02, 0x03]))).toBeNull();
    expect(k('')).toBeNull();
  });
});
