import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { ImportError } from './import-error';

export interface PdfPage {
  page: number;
  total: number;
  text: string;
}

/**
 * The PDF is read in a worker thread with its own heap limit and a deadline, so a hostile file can neither
 * exhaust the API's memory nor hang the job. pdf.js runs with eval disabled and no scripting, fonts or XFA:
 * only the text layer is read, and any JavaScript in the document is never run.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
(async () => {
  const pdfjs = await import(workerData.pdfjs);
  const data = new Uint8Array(fs.readFileSync(workerData.file));
  const doc = await pdfjs.getDocument({
    data,
    isEvalSupported: false,
    enableXfa: false,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
    verbosity: 0,
  }).promise;
  for (let i = 1; i <= doc.numPages; i++) {
    const page = await doc.getPage(i);
    const content = await page.getTextContent();
    let text = '';
    for (const item of content.items) if ('str' in item) text += item.str + (item.hasEOL ? '\\n' : ' ');
    parentPort.postMessage({ page: i, total: doc.numPages, text });
    page.cleanup();
  }
  await doc.destroy();
  parentPort.postMessage({ done: true });
})().catch((e) => parentPort.postMessage({ error: String((e && e.message) || e) }));
`;

export const PDF_LIMITS = { heapMb: 384, timeoutMs: 120_000 };

export async function* pdfPages(file: string, limits = PDF_LIMITS): AsyncGenerator<PdfPage> {
  const pdfjs = pathToFileURL(require.resolve('pdfjs-dist/legacy/build/pdf.mjs')).href;
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file, pdfjs },
    resourceLimits: { maxOldGenerationSizeMb: limits.heapMb },
    stdout: true,
    stderr: true,
  });
  const queue: unknown[] = [];
  let wake: (() => void) | null = null;
  const push = (m: unknown) => {
    queue.push(m);
    wake?.();
  };
  worker.on('message', push);
  worker.on('error', (e) => push({ error: e.message }));
  worker.on('exit', (code) => push({ exit: code }));
  const timer = setTimeout(
    () => push({ error: `PDF reading took longer than ${limits.timeoutMs / 1000} s` }),
    limits.timeoutMs,
  );
  try {
    for (;;) {
      if (queue.length === 0) await new Promise<void>((r) => (wake = r));
      wake = null;
      const m = queue.shift() as {
        page?: number;
        total?: number;
        text?: string;
        error?: string;
        done?: boolean;
        exit?: number;
      };
      if (m.error) throw new ImportError(`invalid PDF: ${m.error}`);
      if (m.done) return;
      if (m.exit !== undefined)
        throw new ImportError('invalid PDF: the reader stopped (memory limit or malformed file)');
      yield { page: m.page!, total: m.total!, text: m.text ?? '' };
    }
  } finally {
    clearTimeout(timer);
    await worker.terminate();
  }
}
