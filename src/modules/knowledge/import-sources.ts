import { Inject, Injectable, Logger } from '@nestjs/common';
import * as fs from 'node:fs';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { TRANSCRIPTION, TranscriptionPort } from '@/providers/transcription/transcription.port';
import type { KnowledgeSource } from './data-source.entity';
import { Crawler } from './importers/crawler';
import { fillCsv } from './importers/csv-import';
import type { FileKind } from './importers/detect-kind';
import type { FillResult, Progress } from './importers/fill-result';
import { ImportError } from './importers/import-error';
import { excelRows, jsonRows, xmlRows } from './importers/row-sources';
import { writeRows } from './importers/table-import';
import { crawlTexts, fileText, oneText, pdfTexts, writeChunks } from './importers/text-import';
import type { RecordsLoad } from './records-load';

/**
 * Where an import's records come from, by the kind of its source: text (paste, website, plain text, PDF, audio)
 * becomes chunks (importers/text-import.ts), tables (JSON, XML, Excel) rows with inferred columns
 * (importers/table-import.ts), CSV the fast COPY path or the general reader (importers/csv-import.ts).
 */
@Injectable()
export class ImportSources {
  private readonly logger = new Logger(ImportSources.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(TRANSCRIPTION) private readonly transcription: TranscriptionPort,
  ) {}

  /** Fills the records table from the data source's origin, by its kind. */
  fill(ds: KnowledgeSource, writer: RecordsLoad, progress: Progress): Promise<FillResult> {
    const o = ds.options;
    switch (ds.type) {
      case 'copypaste':
        return writeChunks(writer, progress, oneText(o.text ?? '', 'copypaste'));
      case 'website': {
        const crawler = new Crawler({
          policy: { allowPrivate: this.config.network.allowPrivateTargets },
          maxPages: this.config.limits.crawlMaxPages,
          depth: o.depth ?? 1,
        });
        return writeChunks(writer, progress, crawlTexts(crawler, o.url!, progress));
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
        return fillCsv(file, writer, progress, this.logger);
      case 'xml':
        return writeRows(writer, progress, xmlRows(file), 'strings');
      case 'json':
        return writeRows(writer, progress, jsonRows(file), 'typed');
      case 'xlsx':
        return writeRows(writer, progress, excelRows(file), 'typed');
      case 'txt':
        return writeChunks(writer, progress, fileText(file, name));
      case 'pdf':
        return writeChunks(writer, progress, pdfTexts(file, name, progress));
      case 'audio':
        if (!this.transcription.configured) throw new ImportError(this.transcription.reason);
        return writeChunks(writer, progress, oneText(await this.transcription.transcribe(file, name), name));
    }
  }
}
