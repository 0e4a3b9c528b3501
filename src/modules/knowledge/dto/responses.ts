import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { COLUMN_TYPES } from '../column-types';
import { PROCESS_WORDS, SYNC_STATUSES } from '../data-source.entity';

export class ColumnResponse {
  @ApiProperty({ example: 1 }) id!: number;
  @ApiProperty({ example: 'price' }) name!: string;
  @ApiProperty({ enum: COLUMN_TYPES, example: 'number' }) type!: string;
}

export class ProgressResponse {
  @ApiProperty({ example: 1200, description: 'rows or pages done' }) done!: number;
  @ApiPropertyOptional({ type: Number, example: 5000, nullable: true }) total?: number | null;
}

export class SyncProgressResponse {
  @ApiProperty({ example: 1200, description: 'records done' }) done!: number;
  @ApiProperty({ example: 5000, description: 'records of the data source when the sync began' })
  total!: number;
}

export class DataSourceResponse {
  @ApiProperty({ example: '01936f0e-7a8b-7c3d-9e2f-1a2b3c4d5e6f' }) uuid!: string;
  @ApiProperty({ example: 'Price list' }) name!: string;
  @ApiProperty({ type: String, example: 'Prices of every product', nullable: true }) description!:
    string | null;
  @ApiProperty({ enum: ['table', 'copypaste', 'file', 'website'], example: 'file' }) type!: string;
  @ApiProperty({
    example: 'https://help.example.com/',
    nullable: true,
    description: 'crawl start URL or uploaded file name',
  })
  path_url!: string | null;
  @ApiProperty({ example: 'csv', nullable: true, description: 'kind of file, detected from its bytes' })
  path_ext!: string | null;
  @ApiProperty({ example: 2, description: '0 queued, 1 processing, 2 ready, 3 failed' }) status!: number;
  @ApiProperty({ enum: PROCESS_WORDS, example: 'ready' }) process!: string;
  @ApiPropertyOptional({ type: ProgressResponse, nullable: true }) progress!: ProgressResponse | null;
  @ApiProperty({ type: String, example: null, nullable: true, description: 'why the import failed' }) error!:
    string | null;
  @ApiProperty({ enum: SYNC_STATUSES, example: 'synced' }) sync_status!: string;
  @ApiProperty({ type: String, example: null, nullable: true }) sync_error!: string | null;
  @ApiProperty({ type: String, example: '2026-11-22T04:17:55.123Z', nullable: true }) last_synced_at!:
    string | null;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) created_at!: string;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) updated_at!: string;
}

export class DataSourceDetailResponse extends DataSourceResponse {
  @ApiProperty({ type: [ColumnResponse] }) columns!: ColumnResponse[];
  @ApiProperty({ example: 42 }) records_count!: number;
  @ApiProperty({
    type: [String],
    example: ['01936f0e-7a8b-7c3d-9e2f-1a2b3c4d5e6f'],
    description: 'assigned agents',
  })
  agent_uuids!: string[];
  @ApiPropertyOptional({
    type: SyncProgressResponse,
    nullable: true,
    description: "records copied into the agents' indexes by the running or last sync; null before the first",
  })
  sync_progress!: SyncProgressResponse | null;
}

export class FieldsResponse {
  @ApiProperty({ type: [ColumnResponse] }) columns!: ColumnResponse[];
}

export class RecordResponse {
  @ApiProperty({ example: 17, description: 'per data source; follows the order of an imported file' })
  id!: number;
  @ApiProperty({
    example: { product: 'Basic plan', price: 19, notes: null },
    description: 'every column of the data source, in its type; null where no value is set',
  })
  data!: Record<string, unknown>;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) created_at!: string;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) updated_at!: string;
}

export class SearchSourceResponse {
  @ApiProperty({ example: '01936f0e-7a8b-7c3d-9e2f-1a2b3c4d5e6f' }) uuid!: string;
  @ApiProperty({ example: 'Help centre' }) name!: string;
  @ApiProperty({ enum: ['table', 'copypaste', 'file', 'website'], example: 'website' }) type!: string;
}

export class SearchRecordResponse {
  @ApiProperty({ example: 17 }) id!: number;
  @ApiProperty({
    enum: ['row', 'chunk'],
    example: 'chunk',
    description: 'a row of a table, or a chunk of imported text',
  })
  kind!: string;
  @ApiProperty({ example: { content: 'We are open Monday to Friday', source: 'paste', position: 0 } })
  data!: Record<string, unknown>;
}

export class SearchResultResponse {
  @ApiProperty({ type: SearchSourceResponse }) data_source!: SearchSourceResponse;
  @ApiProperty({ type: SearchRecordResponse }) record!: SearchRecordResponse;
  @ApiProperty({ example: 'We are **open** Monday to Friday' }) snippet!: string;
  @ApiProperty({ example: 7.4213, description: 'relevance; higher is better, comparable within one answer' })
  score!: number;
}
