import * as fs from 'node:fs/promises';
import { MAX_IMPORT_COLUMNS } from '../records-table';

export type FileKind = 'csv' | 'xlsx' | 'json' | 'xml' | 'pdf' | 'txt' | 'audio';

export interface DetectedKind {
  kind: FileKind;
  /** The extension shown as `path_ext`. */
  ext: string;
}

const startsWith = (b: Buffer, sig: number[], at = 0) => sig.every((v, i) => b[at + i] === v);

/** The audio container the bytes start with, or null. */
export function audioExt(b: Buffer): string | null {
  if (startsWith(b, [0x49, 0x44, 0x33])) return 'mp3'; // ID3 tag
  if (b[0] === 0xff && (b[1] & 0xe0) === 0xe0 && (b[1] & 0x06) !== 0) return 'mp3'; // MPEG frame sync
  if (startsWith(b, [0x52, 0x49, 0x46, 0x46]) && startsWith(b, [0x57, 0x41, 0x56, 0x45], 8)) return 'wav';
  if (startsWith(b, [0x4f, 0x67, 0x67, 0x53])) return 'ogg';
  if (startsWith(b, [0x66, 0x4c, 0x61, 0x43])) return 'flac';
  if (startsWith(b, [0x1a, 0x45, 0xdf, 0xa3])) return 'webm';
  if (startsWith(b, [0x66, 0x74, 0x79, 0x70], 4)) return 'm4a'; // ISO base media (ftyp)
  return null;
}

/** Text when the head decodes as UTF-8 without control bytes other than whitespace. */
function isText(head: Buffer): boolean {
  // A multi-byte character may be cut at the end of the head: ignore the last 3 bytes for the check.
  const body = head.length > 4 ? head.subarray(0, head.length - 3) : head;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    return false;
  }
  for (const byte of body) if (byte < 0x09 || (byte > 0x0d && byte < 0x20 && byte !== 0x1b)) return false;
  return true;
}

/** Fields of one line, delimiters inside double quotes not counted. */
function fieldCount(line: string, delimiter: string): number {
  let count = 1;
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (ch === delimiter && !quoted) count++;
  }
  return count;
}

/** The first records of CSV-like text: line breaks inside double quotes do not end a record. */
function firstRecords(text: string, max: number): string[] {
  const records: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length && records.length < max; i++) {
    const ch = text[i];
    if (ch === '"') quoted = !quoted;
    else if (ch === '\n' && !quoted) {
      records.push(text.slice(start, i).replace(/\r$/, ''));
      start = i + 1;
    }
  }
  // What follows the last line break may be cut short by the end of the head: it is not counted.
  return records.filter((l) => l.trim().length > 0);
}

/** CSV when the first records split into the same number (at least two) of fields on one delimiter. */
function looksLikeCsv(text: string): boolean {
  const records = firstRecords(text, 10);
  if (records.length < 2) {
    // A short file: its last line is whole when nothing follows it.
    const lines = text.split(/\r?\n/).filter((l) => l.trim().length > 0);
    if (lines.length !== 2) return false;
    records.splice(0, records.length, ...lines);
  }
  return [',', ';', '\t'].some((d) => {
    const counts = records.map((l) => fieldCount(l, d));
    return counts[0] >= 2 && counts.every((c) => c === counts[0]);
  });
}

/**
 * The fields of the first line (as far as the head holds it) on the delimiter it holds most of: a header wider
 * than the column limit is a table to refuse, even when its first line is longer than the head.
 */
export function headerFieldCount(text: string): number {
  const end = text.indexOf('\n');
  const line = end < 0 ? text : text.slice(0, end);
  return Math.max(...[',', ';', '\t'].map((d) => fieldCount(line, d)));
}

/** The kind of an uploaded file, from its first bytes (never its name); null when it is not supported. */
export function detectKind(head: Buffer): DetectedKind | null {
  if (head.length === 0) return null;
  if (startsWith(head, [0x25, 0x50, 0x44, 0x46, 0x2d])) return { kind: 'pdf', ext: 'pdf' };
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04])) return { kind: 'xlsx', ext: 'xlsx' };
  const audio = audioExt(head);
  if (audio) return { kind: 'audio', ext: audio };
  if (!isText(head)) return null;
  const text = head.toString('utf8').replace(/^\uFEFF/, '');
  const start = text.trimStart();
  if (start.startsWith('<')) return { kind: 'xml', ext: 'xml' };
  if (start.startsWith('[') || start.startsWith('{')) return { kind: 'json', ext: 'json' };
  if (looksLikeCsv(text) || headerFieldCount(text) > MAX_IMPORT_COLUMNS) return { kind: 'csv', ext: 'csv' };
  return { kind: 'txt', ext: 'txt' };
}

export async function readHead(file: string, bytes = 8192): Promise<Buffer> {
  const handle = await fs.open(file, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
