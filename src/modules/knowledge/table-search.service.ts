import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { DataSourcesService } from './data-sources.service';
import { RecordsRepository } from './records.repository';

export interface TableHit {
  record_id: number;
  score: number;
  values: Record<string, unknown>;
}

/** Search of one data table's rows as they are now (no assignment or sync), for tools that look rows up. */
@Injectable()
export class TableSearch {
  constructor(
    private readonly dataSources: DataSourcesService,
    private readonly records: RecordsRepository,
  ) {}

  /** 404 RESOURCE_NOT_FOUND `Data table not found` when it is not a typed table of the workspace. */
  async assertTable(workspaceId: WorkspaceId, dataSourceId: string): Promise<void> {
    const ds = await this.dataSources.get(workspaceId, dataSourceId).catch(() => null);
    if (ds?.type !== 'table') throw AppException.notFound('Data table');
  }

  async search(
    workspaceId: WorkspaceId,
    dataSourceId: string,
    query: string,
    limit: number,
  ): Promise<TableHit[]> {
    const ds = await this.dataSources.get(workspaceId, dataSourceId).catch(() => null);
    if (ds?.type !== 'table') throw AppException.notFound('Data table');
    const rows = await this.records.search(ds, query, Math.min(Math.max(limit, 1), 50));
    return rows.map((r) => ({ record_id: r.id, score: r.score, values: r.data }));
  }
}
