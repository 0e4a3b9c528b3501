import { Injectable } from '@nestjs/common';
import * as fs from 'node:fs/promises';
import { AppException, FieldError } from '@/common/errors/app.exception';
import { Page, pageOf, PageQuery, skipTake } from '@/common/http/pagination';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { checkRecord, cleanRecord, Column, Row } from './column-types';
import { KnowledgeSource, PROCESS_WORDS } from './data-source.entity';
import { DataSourcesRepository } from './data-sources.repository';
import { CreateTableDto } from './dto/create-table.dto';
import { AddRecordsDto, MAX_BATCH, UpdateRecordDto } from './dto/records.dto';
import { DataSourceDetailResponse, DataSourceResponse, RecordResponse } from './dto/responses';
import { KnowledgeIndexRepository } from './knowledge-index.repository';
import { RecordRow, RecordsRepository } from './records.repository';

export function toDataSourceResponse(ds: KnowledgeSource): DataSourceResponse {
  const progress =
    ds.progressDone === null ? null : { done: ds.progressDone, total: ds.progressTotal ?? null };
  return {
    uuid: ds.id,
    name: ds.name,
    description: ds.description,
    type: ds.type,
    path_url: ds.pathUrl,
    path_ext: ds.pathExt,
    status: ds.status,
    process: PROCESS_WORDS[ds.status] ?? 'queued',
    progress,
    error: ds.error,
    sync_status: ds.syncStatus,
    sync_error: ds.syncError,
    last_synced_at: ds.lastSyncedAt ? ds.lastSyncedAt.toISOString() : null,
    created_at: ds.createdAt.toISOString(),
    updated_at: ds.updatedAt.toISOString(),
  };
}

export function toRecordResponse(r: RecordRow): RecordResponse {
  return {
    id: r.id,
    data: { ...r.data },
    created_at: new Date(r.createdAt).toISOString(),
    updated_at: new Date(r.updatedAt).toISOString(),
  };
}

/** Data sources and their records: typed tables, the detail of imports, per-column checks of every write. */
@Injectable()
export class DataSourcesService {
  constructor(
    private readonly sources: DataSourcesRepository,
    private readonly records: RecordsRepository,
    private readonly index: KnowledgeIndexRepository,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  async get(workspaceId: WorkspaceId, id: string): Promise<KnowledgeSource> {
    const ds = await this.sources.findById(workspaceId, id);
    if (!ds) throw AppException.notFound('Data source');
    return ds;
  }

  async list(workspaceId: WorkspaceId, query: PageQuery): Promise<Page<DataSourceResponse>> {
    const [items, total] = await this.sources.findAndCount(workspaceId, {
      order: { createdAt: 'DESC', id: 'DESC' },
      ...skipTake(query),
    });
    return pageOf(items.map(toDataSourceResponse), total, query);
  }

  async detail(workspaceId: WorkspaceId, id: string): Promise<DataSourceDetailResponse> {
    const ds = await this.get(workspaceId, id);
    return {
      ...toDataSourceResponse(ds),
      columns: ds.columns,
      records_count: await this.records.count(ds),
      sync_progress: await this.index.syncProgress(workspaceId, id),
      agent_uuids: await this.index.agentsOf(workspaceId, id),
    };
  }

  async createTable(workspaceId: WorkspaceId, dto: CreateTableDto): Promise<DataSourceDetailResponse> {
    const seen = new Set<string>();
    dto.columns.forEach((c, i) => {
      if (seen.has(c.name))
        throw AppException.invalid(`columns.${i}.name`, `columns.${i}.name ${c.name} is used twice`);
      seen.add(c.name);
    });
    const columns: Column[] = dto.columns.map((c, i) => ({ id: i + 1, name: c.name, type: c.type }));
    const ds = this.sources.build(workspaceId, {
      name: dto.name,
      description: dto.description ?? null,
      type: 'table',
      status: 2,
      columns,
    });
    await this.unitOfWork.run(async (m) => {
      ds.recordsTable = await this.records.createTable(m, ds.id, columns);
      await this.sources.save(workspaceId, ds, m);
    });
    return this.detail(workspaceId, ds.id);
  }

  async remove(workspaceId: WorkspaceId, id: string): Promise<void> {
    const ds = await this.get(workspaceId, id);
    const agents = await this.index.agentsOf(workspaceId, id);
    // Assignments and the agents' index rows go with it (foreign keys cascade), its records table with the
    // row (a trigger drops it).
    await this.sources.delete(workspaceId, { id });
    await this.index.recountAgents(workspaceId, agents);
    if (ds.options.file) await fs.rm(ds.options.file, { force: true }).catch(() => undefined);
  }

  async listRecords(workspaceId: WorkspaceId, id: string, query: PageQuery): Promise<Page<RecordResponse>> {
    const ds = await this.get(workspaceId, id);
    const { skip, take } = skipTake(query);
    const [rows, total] = await this.records.list(ds, skip, take);
    return pageOf(rows.map(toRecordResponse), total, query);
  }

  /** `{record}` or `{records: [...]}` (up to 1000), all or nothing. */
  async addRecords(workspaceId: WorkspaceId, id: string, dto: AddRecordsDto): Promise<RecordResponse[]> {
    const ds = await this.get(workspaceId, id);
    const batch = dto.records !== undefined;
    if (!batch && dto.record === undefined)
      throw AppException.invalid('record', 'record or records is required', 'VALIDATION_ERROR');
    const list = batch ? dto.records! : [dto.record];
    if (list.length === 0)
      throw AppException.invalid('records', 'records should not be empty', 'VALIDATION_ERROR');
    if (list.length > MAX_BATCH)
      throw AppException.invalid('records', `records may hold at most ${MAX_BATCH} records`);
    const errors: FieldError[] = [];
    list.forEach((record, i) => {
      const prefix = batch ? `records.${i}` : 'record';
      for (const p of checkRecord(ds.columns, record))
        errors.push({
          code: p.code,
          field: p.column ? `${prefix}.${p.column}` : prefix,
          message: `${prefix}.${p.message}`,
        });
    });
    if (errors.length) throw AppException.validation(errors);
    const rows = list.map((r) => cleanRecord(ds.columns, r as Row));
    return (await this.records.insertMany(ds, rows)).map(toRecordResponse);
  }

  async updateRecord(
    workspaceId: WorkspaceId,
    id: string,
    recordId: number,
    dto: UpdateRecordDto,
  ): Promise<RecordResponse> {
    const ds = await this.get(workspaceId, id);
    const problems = checkRecord(ds.columns, dto.record);
    if (problems.length)
      throw AppException.validation(
        problems.map((p) => ({ code: p.code, field: `record.${p.column}`, message: `record.${p.message}` })),
      );
    const row = await this.records.update(ds, recordId, cleanRecord(ds.columns, dto.record));
    if (!row) throw AppException.notFound('Record');
    return toRecordResponse(row);
  }

  async deleteRecord(workspaceId: WorkspaceId, id: string, recordId: number): Promise<void> {
    const ds = await this.get(workspaceId, id);
    if (!(await this.records.delete(ds, recordId))) throw AppException.notFound('Record');
  }
}
