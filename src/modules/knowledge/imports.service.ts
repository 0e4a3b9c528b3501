import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { AppException, FieldError } from '@/common/errors/app.exception';
import { toFieldErrors } from '@/common/http/validation';
import { BlockedAddressError } from '@/common/net/address-guard';
import { OutboundError } from '@/common/net/outbound-http';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { TranscriptionError } from '@/providers/transcription/transcription.port';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { KnowledgeSource, DataSourceType, ImportOptions, STATUS } from './data-source.entity';
import { DataSourcesRepository } from './data-sources.repository';
import { toDataSourceResponse } from './data-sources.service';
import { CopyPasteImportDto, FileImportDto, MAX_UPLOAD_BYTES, WebsiteImportDto } from './dto/import.dto';
import { DataSourceResponse } from './dto/responses';
import { ImportSources } from './import-sources';
import { detectKind, headerFieldCount, readHead } from './importers/detect-kind';
import type { Progress } from './importers/fill-result';
import { ImportError } from './importers/import-error';
import { MAX_IMPORT_COLUMNS } from './records-table';
import { RecordsRepository } from './records.repository';

export { MAX_UPLOAD_BYTES };

/** The upload as multer left it on disk. */
export interface UploadedFile {
  path: string;
  originalname: string;
  size: number;
}

/**
 * Imports: each request creates the data source (status 0) and queues a job that fills it (`run`: status,
 * progress, retries; the records themselves come from ImportSources, by the kind of source).
 */
@Injectable()
export class ImportsService {
  private readonly logger = new Logger(ImportsService.name);

  constructor(
    private readonly sources: DataSourcesRepository,
    private readonly records: RecordsRepository,
    @InjectQueue(QUEUES.knowledge) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly origins: ImportSources,
  ) {}

  get uploadDir(): string {
    return path.join(this.config.storageDir, 'uploads');
  }

  async importPaste(workspaceId: WorkspaceId, dto: CopyPasteImportDto): Promise<DataSourceResponse> {
    return this.create(workspaceId, 'copypaste', dto, { text: dto.data }, null, 'txt');
  }

  async importWebsite(workspaceId: WorkspaceId, dto: WebsiteImportDto): Promise<DataSourceResponse> {
    return this.create(workspaceId, 'website', dto, { url: dto.url, depth: dto.depth ?? 1 }, dto.url, 'html');
  }

  /** Checks the multipart fields and the file together (one 422 naming every problem), then detects the kind. */
  async importFile(
    workspaceId: WorkspaceId,
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
    workspaceId: WorkspaceId,
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
  async run(workspaceId: WorkspaceId, dataSourceId: string, lastAttempt: boolean): Promise<void> {
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
        (load) => this.origins.fill(ds, load, progress),
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

  private async removeFile(ds: KnowledgeSource): Promise<void> {
    if (ds.options.file) await fsp.rm(ds.options.file, { force: true }).catch(() => undefined);
  }
}
