import * as fs from 'node:fs';
import { Chunker } from '../chunking';
import { CHUNK_COLUMNS, encodeValue } from '../column-types';
import type { RecordsLoad } from '../records-load';
import type { Crawler } from './crawler';
import type { FillResult, Progress } from './fill-result';
import { ImportError } from './import-error';
import { pdfPages } from './pdf-text';

/** A piece of text and where it came from (file name, page, url): the sources of a chunked records table. */
export type SourcedText = { text: string; source: string };

/** Text sources (paste, website, plain text, PDF, audio): chunked, one record a chunk with its source. */
export async function writeChunks(
  load: RecordsLoad,
  progress: Progress,
  texts: AsyncIterable<SourcedText>,
): Promise<FillResult> {
  let position = 0;
  await load.start(CHUNK_COLUMNS.map((c) => c.id));
  for await (const { text, source } of texts) {
    const chunker = new Chunker();
    const write = async (chunks: string[]) => {
      for (const content of chunks)
        await load.write([encodeValue('text', content), encodeValue('text', source), String(position++)]);
    };
    await write(chunker.push(text));
    await write(chunker.end());
  }
  if (position === 0) throw new ImportError('no readable text was found');
  return { columns: CHUNK_COLUMNS, jsonSince: new Map(), count: position, total: null };
}

export async function* oneText(text: string, source: string): AsyncGenerator<SourcedText> {
  await Promise.resolve();
  yield { text, source };
}

export async function* fileText(file: string, source: string): AsyncGenerator<SourcedText> {
  // One source, read in pieces: the chunker is fed as the file streams, never the whole file at once.
  let buffer = '';
  for await (const piece of fs.createReadStream(file, { encoding: 'utf8', highWaterMark: 256 * 1024 })) {
    buffer += (piece as string).replace(/^\uFEFF/, '').replaceAll('\u0000', '');
    const cut = buffer.lastIndexOf('\n\n');
    if (cut > 0 && buffer.length > 64 * 1024) {
      yield { text: buffer.slice(0, cut), source };
      buffer = buffer.slice(cut);
    }
  }
  if (buffer.trim()) yield { text: buffer, source };
}

export async function* pdfTexts(file: string, name: string, progress: Progress): AsyncGenerator<SourcedText> {
  for await (const page of pdfPages(file)) {
    progress(page.page, page.total);
    if (page.text.trim()) yield { text: page.text, source: `${name}#page=${page.page}` };
  }
}

export async function* crawlTexts(
  crawler: Crawler,
  url: string,
  progress: Progress,
): AsyncGenerator<SourcedText> {
  let pages = 0;
  for await (const page of crawler.crawl(url)) {
    progress(++pages);
    const text =
      page.title && !page.text.startsWith(page.title) ? `${page.title}\n\n${page.text}` : page.text;
    if (text.trim()) yield { text, source: page.url };
  }
}
