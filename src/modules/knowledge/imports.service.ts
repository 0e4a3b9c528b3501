import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { AppException, FieldError } from '@/common/errors/app.exception';
import { toFieldErrors } from '@/common/http/validation';
import { BlockedAddressError } from '@/common/net/address-guard';
import { OutboundError } from '@/common/net/outbound-http';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import {
  TRANSCRIPTION,
  TranscriptionError,
  TranscriptionPort,
} from '@/providers/transcription/transcription.port';
import { Chunker } from './chunking';
import { CHUNK_COLUMNS, Column, encodeValue, Row, SchemaInference } from './column-types';
import { DataSource, DataSourceType, ImportOptions, STATUS } from './data-source.entity';
import { DataSourcesRepository } from './data-sources.repository';
import { toDataSourceResponse } from './data-sources.service';
import { CopyPasteImportDto, FileImportDto, MAX_UPLOAD_BYTES, WebsiteImportDto } from './dto/import.dto';
import { DataSourceResponse } from './dto/responses';
import { Crawler } from './importers/crawler';
import {
  CsvFastPath,
  csvLayout,
  csvSplit,
  FastPathRefused,
  feedNumbered,
  feedRange,
  SPLIT_MIN_BYTES,
} from './importers/csv-fast';
import { detectKind, FileKind, headerFieldCount, readHead } from './importers/detect-kind';
import { ImportError } from './importers/import-error';
import { pdfPages } from './importers/pdf-text';
import { csvRows, excelRows, jsonRows, xmlRows, tooManyColumns } from './importers/row-sources';
import { checkWorkbookArchive } from './importers/zip-guard';
import { MAX_IMPORT_COLUMNS } from './records-table';
import { CsvPart, RecordsLoad } from './records-load';
import { RecordsRepository } from './records.repository';

export { MAX_UPLOAD_BYTES };
/** Rows past this are refused: no legitimate upload of 128 MB holds more, a decompression bomb might. */
export const MAX_IMPORT_ROWS = 5_000_000;

interface FillResult {
  columns: Column[];
  /** Columns that turned into json after rows held them as plain text: how many rows to quote as JSON. */
  jsonSince: Map<number, number>;
  count: number;
  total: number | null;
}

type Progress = (done: number, total?: number | null) => void;

/** The upload as multer left it on disk. */
export interface UploadedFile {
  path: string;
  originalname: string;
  size: number;
}

/** Imports: each request creates the data source (status 0) and queues a job that fills it. */
@Injectable()
export class ImportsService {
  private readonly logger = new Logger(ImportsService.name);

  constructor(
    private readonly sources: DataSourcesRepository,
    private readonly records: RecordsRepository,
    @InjectQueue(QUEUES.knowledge) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(TRANSCRIPTION) private readonly transcription: TranscriptionPort,
  ) {}

  get uploadDir(): string {
    return path.join(this.config.storageDir, 'uploads');
  }

  async importPaste(workspaceId: string, dto: CopyPasteImportDto): Promise<DataSourceResponse> {
    return this.create(workspaceId, 'copypaste', dto, { text: dto.data }, null, 'txt');
  }

  async importWebsite(workspaceId: string, dto: WebsiteImportDto): Promise<DataSourceResponse> {
    return this.create(workspaceId, 'website', dto, { url: dto.url, depth: dto.depth ?? 1 }, dto.url, 'html');
  }

  /** Checks the multipart fields and the file together (one 422 naming every problem), then detects the kind. */
  async importFile(
    workspaceId: string,
    body: unknown,
    file: UploadedFile | undefined,
  ): Promise<DataSourceResponse> {
    let placed: string | undefined;
    try {
      const dto = plainToInstance(FileImportDto, body ?? {});
      const errors: FieldError[] = toFieldErrors(await validate(dto, { whitelist: true }));
      if (!file || file.size === 0)
        errors.push({
          code: 'VALIDATION_ERROR',
          field: 'file',
          message: file ? 'file is empty' : 'file is required',
        });
      if (errors.length) throw AppException.validation(errors);
      const head = await readHead(file!.path);
      const detected = detectKind(head);
      if (!detected)
        throw AppException.invalid(
          'file',
          'file type is not supported (CSV, Excel .xlsx, JSON, XML, PDF, plain text or audio)',
        );
      if (detected.kind === 'csv' && headerFieldCount(head.toString('utf8')) > MAX_IMPORT_COLUMNS)
        throw AppException.invalid(
          'file',
          `file is a table with more than ${MAX_IMPORT_COLUMNS} columns, the limit of a table`,
        );
      const originalName = path.basename(file!.originalname || 'upload').slice(0, 200);
      const ds = await this.create(
        workspaceId,
        'file',
        dto,
        { kind: detected.kind, originalName },
        originalName,
        detected.ext,
        async (id) => {
          placed = path.join(this.uploadDir, id);
          await fsp.rename(file!.path, placed);
          return placed;
        },
      );
      return ds;
    } catch (err) {
      // Nothing of a refused upload stays on disk, wherever it got to.
      for (const leftover of [file?.path, placed])
        if (leftover) await fsp.rm(leftover, { force: true }).catch(() => undefined);
      throw err;
    }
  }

  private async create(
    workspaceId: string,
    type: DataSourceType,
    dto: { name: string; description?: string },
    options: ImportOptions,
    pathUrl: string | null,
    pathExt: string | null,
    placeFile?: (id: string) => Promise<string>,
  ): Promise<DataSourceResponse> {
    const ds = this.sources.build(workspaceId, {
      name: dto.name,
      description: dto.description ?? null,
      type,
      pathUrl,
      pathExt,
      status: STATUS.queued,
      columns: [],
      options,
    });
    if (placeFile) ds.options = { ...options, file: await placeFile(ds.id) };
    await this.sources.save(workspaceId, ds);
    const payload: JobPayloads['knowledge']['import'] = { workspaceId, dataSourceId: ds.id };
    try {
      await this.queue.add('import', payload, { attempts: 3 });
    } catch (err) {
      // Never leave a data source queued with no job behind it.
      await this.sources.patch(workspaceId, ds.id, {
        status: STATUS.failed,
        error: 'the import could not be queued',
      });
      throw err;
    }
    return toDataSourceResponse(ds);
  }

  /** The job: fills the data source, replacing what an earlier run wrote; a failure leaves status 3 and no rows. */
  async run(workspaceId: string, dataSourceId: string, lastAttempt: boolean): Promise<void> {
    const ds = await this.sources.findById(workspaceId, dataSourceId);
    if (!ds) return;
    await this.sources.patch(workspaceId, ds.id, {
      status: STATUS.processing,
      error: null,
      progressDone: 0,
      progressTotal: null,
    });
    let last = 0;
    let pending: Promise<void> = Promise.resolve();
    const progress: Progress = (done, total) => {
      const now = Date.now();
      if (now - last < 500) return;
      last = now;
      pending = this.sources
        .patch(workspaceId, ds.id, { progressDone: done, progressTotal: total ?? null })
        .catch(() => undefined);
    };
    try {
      await this.records.replaceAll(
        ds.id,
        (load) => this.fill(ds, load, progress),
        async (manager, result, load) => {
          await pending;
          await load.finish(result.columns.map((c) => c.id));
          for (const [columnId, rows] of result.jsonSince) await load.quoteAsJson(columnId, rows);
          await this.sources.patch(
            workspaceId,
            ds.id,
            {
              status: STATUS.ready,
              error: null,
              columns: result.columns,
              progressDone: result.count,
              progressTotal: result.total ?? result.count,
              // Pointing at the new table drops the old one (a trigger), in this same transaction.
              recordsTable: load.table,
            },
            manager,
          );
        },
      );
      await this.removeFile(ds);
    } catch (err) {
      await pending;
      const input =
        err instanceof ImportError ||
        err instanceof TranscriptionError ||
        err instanceof BlockedAddressError ||
        err instanceof OutboundError;
      const reason = input ? (err as Error).message : `import failed: ${(err as Error).message}`;
      if (!input && !lastAttempt) {
        // A passing failure (database, disk) is retried by the queue: the source stays queued, not failed.
        await this.sources.patch(workspaceId, ds.id, {
          status: STATUS.queued,
          error: `retrying after: ${reason}`.slice(0, 2000),
        });
        this.logger.warn(
          { err: (err as Error).message, dataSourceId: ds.id },
          'import attempt failed; retrying',
        );
        throw err;
      }
      await this.sources.patch(workspaceId, ds.id, { status: STATUS.failed, error: reason.slice(0, 2000) });
      await this.removeFile(ds);
      if (!input) this.logger.error({ err, dataSourceId: ds.id }, 'import failed');
    }
  }

  private async removeFile(ds: DataSource): Promise<void> {
    if (ds.options.file) await fsp.rm(ds.options.file, { force: true }).catch(() => undefined);
  }

  private fill(ds: DataSource, writer: RecordsLoad, progress: Progress): Promise<FillResult> {
    const o = ds.options;
    switch (ds.type) {
      case 'copypaste':
        return this.writeChunks(writer, progress, oneText(o.text ?? '', 'copypaste'));
      case 'website': {
        const crawler = new Crawler({
          policy: { allowPrivate: this.config.network.allowPrivateTargets },
          maxPages: this.config.limits.crawlMaxPages,
          depth: o.depth ?? 1,
        });
        return this.writeChunks(writer, progress, crawlTexts(crawler, o.url!, progress));
      }
      case 'file':
        return this.fillFile(o.kind as FileKind, o.file!, o.originalName ?? 'upload', writer, progress);
      default:
        throw new ImportError(`a ${ds.type} data source has nothing to import`);
    }
  }

  private async fillFile(
    kind: FileKind,
    file: string,
    name: string,
    writer: RecordsLoad,
    progress: Progress,
  ): Promise<FillResult> {
    if (!fs.existsSync(file)) throw new ImportError('the uploaded file is no longer available');
    switch (kind) {
      case 'csv':
        return this.fillCsv(file, writer, progress);
      case 'xml':
        return this.writeRows(writer, progress, xmlRows(file), 'strings');
      case 'json':
        return this.writeRows(writer, progress, jsonRows(file), 'typed');
      case 'xlsx':
        await checkWorkbookArchive(file);
        return this.writeRows(writer, progress, excelRows(file), 'typed');
      case 'txt':
        return this.writeChunks(writer, progress, fileText(file, name));
      case 'pdf':
        return this.writeChunks(writer, progress, pdfTexts(file, name, progress));
      case 'audio':
        if (!this.transcription.configured) throw new ImportError(this.transcription.reason);
        return this.writeChunks(
          writer,
          progress,
          oneText(await this.transcription.transcribe(file, name), name),
        );
    }
  }

  /**
   * A clean CSV file is read by PostgreSQL itself (COPY ... FORMAT csv) while a fast reader decides the column
   * types on the same pass; a file that PostgreSQL refuses or might read differently (see CsvFastPath) is read
   * by csv-parse, which tolerates ragged rows and stray quotes. Both give the same records and types.
   */
  private async fillCsv(file: string, load: RecordsLoad, progress: Progress): Promise<FillResult> {
    const layout = csvLayout(await readHead(file, 64 * 1024));
    if (layout && layout.names.length >= 2 && layout.names.length <= MAX_IMPORT_COLUMNS) {
      const fast = new CsvFastPath(layout, (rows) => progress(rows));
      // The reader runs beside the COPY; its verdict is awaited once PostgreSQL is done.
      const reading = fast.read(file);
      reading.catch(() => undefined);
      // A large file goes in two parts at once. The first part starts at once with the bytes before the middle
      // (the cut always comes after it) while the cut is being found.
      const size = (await fsp.stat(file)).size;
      const splitting = size >= SPLIT_MIN_BYTES ? csvSplit(file, 0) : null;
      splitting?.catch(() => undefined);
      const middle = Math.floor(size / 2);
      const parts: CsvPart[] = splitting
        ? [
            {
              header: true,
              withIds: false,
              feed: async (copy) => {
                await feedRange(file, copy, 0, middle);
                const split = await splitting;
                await feedRange(file, copy, middle, split?.cut);
              },
            },
            {
              header: false,
              withIds: true,
              // The first part's data rows take ids 1 to firstRecords - 1 (its header is not a row).
              feed: async (copy) => {
                const split = await splitting;
                if (split) await feedNumbered(file, copy, split.cut, split.firstRecords, layout.delimiter);
              },
            },
          ]
        : [{ header: true, withIds: false, feed: (copy) => feedRange(file, copy, 0) }];
      const copied = await load.copyCsv(
        layout.names.map((_, i) => i + 1),
        layout.delimiter,
        parts,
      );
      try {
        if ('error' in copied) {
          await reading.catch(() => undefined);
          throw copied.error;
        }
        await reading;
        const split = await splitting;
        if (split && copied.rows[0] !== split.firstRecords - 1)
          throw new FastPathRefused('the first part holds another number of rows than counted');
        const count = copied.rows.reduce((a, b) => a + b, 0);
        const columns = fast.columns(count);
        return { columns, jsonSince: new Map(), count, total: null };
      } catch (err) {
        if ('rows' in copied) load.discard();
        this.logger.debug({ reason: (err as Error).message }, 'CSV read by the general reader');
      }
    }
    return this.writeRows(load, progress, csvRows(file, layout?.delimiter ?? ','), 'strings');
  }

  private async writeRows(
    load: RecordsLoad,
    progress: Progress,
    rows: AsyncIterable<Row>,
    mode: 'strings' | 'typed',
  ): Promise<FillResult> {
    const schema = new SchemaInference(mode);
    let known = 0;
    const put = async (out: Row) => {
      const columns = schema.columns;
      if (columns.length > MAX_IMPORT_COLUMNS) throw tooManyColumns(null);
      if (!load.started) await load.start(columns.map((c) => c.id));
      else if (columns.length > known) await load.addColumns(columns.slice(known).map((c) => c.id));
      known = columns.length;
      // Own keys only: `out` is a plain object, and `constructor` is a column name like any other.
      await load.write(
        columns.map((c) => (Object.hasOwn(out, c.name) ? encodeValue(c.type, out[c.name]) : null)),
      );
    };
    let read = 0;
    for await (const row of rows) {
      if (++read > MAX_IMPORT_ROWS) throw new ImportError(`refused: more than ${MAX_IMPORT_ROWS} rows`);
      for (const out of schema.push(row)) await put(out);
      progress(read);
    }
    for (const out of schema.flush()) await put(out);
    const byName = new Map(schema.columns.map((c) => [c.name, c.id]));
    const jsonSince = new Map([...schema.jsonSince].map(([name, n]) => [byName.get(name)!, n]));
    return { columns: schema.columns, jsonSince, count: load.count, total: null };
  }

  private async writeChunks(
    load: RecordsLoad,
    progress: Progress,
    texts: AsyncIterable<{ text: string; source: string }>,
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
}

async function* oneText(text: string, source: string): AsyncGenerator<{ text: string; source: string }> {
  await Promise.resolve();
  yield { text, source };
}

async function* fileText(file: string, source: string): AsyncGenerator<{ text: string; source: string }> {
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

async function* pdfTexts(
  file: string,
  name: string,
  progress: Progress,
): AsyncGenerator<{ text: string; source: string }> {
  for await (const page of pdfPages(file)) {
    progress(page.page, page.total);
    if (page.text.trim()) yield { text: page.text, source: `${name}#page=${page.page}` };
  }
}

async function* crawlTexts(
  crawler: Crawler,
  url: string,
  progress: Progress,
): AsyncGenerator<{ text: string; source: string }> {
  let pages = 0;
  for await (const page of crawler.crawl(url)) {
    progress(++pages);
    const text =
      page.title && !page.text.startsWith(page.title) ? `${page.title}\n\n${page.text}` : page.text;
    if (text.trim()) yield { text, source: page.url };
  }
}
