import {
  Body,
  Controller,
  Delete,
  Get,
  Injectable,
  Param,
  PipeTransform,
  Post,
  Put,
  Query,
} from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { AppException } from '@/common/errors/app.exception';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { Envelope } from '@/common/http/envelope';
import { Page, PageQuery } from '@/common/http/pagination';
import { UuidParamPipe } from '@/common/http/validation';
import { DataSourcesService } from './data-sources.service';
import { CreateTableDto } from './dto/create-table.dto';
import { AddRecordsDto, UpdateRecordDto } from './dto/records.dto';
import {
  DataSourceDetailResponse,
  DataSourceResponse,
  FieldsResponse,
  RecordResponse,
} from './dto/responses';

/** A record id in the path: a positive integer, else 422 INVALID_FORMAT naming `record`. */
@Injectable()
export class RecordIdPipe implements PipeTransform<string, number> {
  transform(value: string): number {
    // Only integers JavaScript holds exactly: a larger one would silently name a neighbouring record.
    if (!/^[1-9]\d{0,15}$/.test(value) || !Number.isSafeInteger(Number(value)))
      throw AppException.invalid(
        'record',
        `record must be a positive integer up to ${Number.MAX_SAFE_INTEGER}`,
      );
    return Number(value);
  }
}

const RECORD_PARAM = {
  schema: { type: 'integer', format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, example: 17 },
} as const;

@ApiTags('Data')
@Controller('api/v1/data')
export class DataSourcesController {
  constructor(private readonly service: DataSourcesService) {}

  @Get()
  @ApiOperation({ summary: 'List data sources (tables and imports), newest first' })
  @ApiEnvelope(DataSourceResponse, { paginated: true, errors: ['INVALID_FORMAT'] })
  list(@WorkspaceId() ws: WorkspaceId, @Query() query: PageQuery): Promise<Page<DataSourceResponse>> {
    return this.service.list(ws, query);
  }

  @Post('tables')
  @ApiOperation({ summary: 'Create an empty table with a typed column schema' })
  @ApiEnvelope(DataSourceDetailResponse, { status: 201, errors: ['VALIDATION_ERROR', 'INVALID_FORMAT'] })
  createTable(
    @WorkspaceId() ws: WorkspaceId,
    @Body() dto: CreateTableDto,
  ): Promise<DataSourceDetailResponse> {
    return this.service.createTable(ws, dto);
  }

  @Get(':uuid')
  @ApiOperation({ summary: 'A data source with its columns, records count and assigned agents' })
  @ApiEnvelope(DataSourceDetailResponse, { errors: ['INVALID_UUID'] })
  get(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
  ): Promise<DataSourceDetailResponse> {
    return this.service.detail(ws, id);
  }

  @Delete(':uuid')
  @ApiOperation({ summary: 'Delete a data source, its records, assignments and indexed copies' })
  @ApiEnvelope(null, { nullable: true, errors: ['INVALID_UUID'] })
  async remove(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
  ): Promise<Envelope<null>> {
    await this.service.remove(ws, id);
    return new Envelope(null, 'Data source deleted');
  }

  @Get(':uuid/fields')
  @ApiOperation({ summary: 'The column schema of a data source' })
  @ApiEnvelope(FieldsResponse, { errors: ['INVALID_UUID'] })
  async fields(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
  ): Promise<FieldsResponse> {
    return { columns: (await this.service.get(ws, id)).columns };
  }

  @Get(':uuid/records')
  @ApiOperation({ summary: 'List the records of a data source, in insertion order' })
  @ApiEnvelope(RecordResponse, { paginated: true, errors: ['INVALID_UUID', 'INVALID_FORMAT'] })
  records(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
    @Query() query: PageQuery,
  ): Promise<Page<RecordResponse>> {
    return this.service.listRecords(ws, id, query);
  }

  @Post(':uuid/records')
  @ApiOperation({ summary: 'Add one record (`record`) or up to 1000 (`records`, all or nothing)' })
  @ApiEnvelope(RecordResponse, {
    status: 201,
    isArray: true,
    errors: ['INVALID_UUID', 'VALIDATION_ERROR', 'INVALID_FORMAT'],
  })
  addRecords(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: AddRecordsDto,
  ): Promise<RecordResponse[]> {
    return this.service.addRecords(ws, id, dto);
  }

  @Put(':uuid/records/:record')
  @ApiOperation({ summary: 'Change the values sent of one record' })
  @ApiParam({ name: 'record', ...RECORD_PARAM })
  @ApiEnvelope(RecordResponse, { errors: ['INVALID_UUID', 'VALIDATION_ERROR', 'INVALID_FORMAT'] })
  updateRecord(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
    @Param('record', RecordIdPipe) record: number,
    @Body() dto: UpdateRecordDto,
  ): Promise<RecordResponse> {
    return this.service.updateRecord(ws, id, record, dto);
  }

  @Delete(':uuid/records/:record')
  @ApiOperation({ summary: 'Delete one record' })
  @ApiParam({ name: 'record', ...RECORD_PARAM })
  @ApiEnvelope(null, { nullable: true, errors: ['INVALID_UUID', 'INVALID_FORMAT'] })
  async deleteRecord(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
    @Param('record', RecordIdPipe) record: number,
  ): Promise<Envelope<null>> {
    await this.service.deleteRecord(ws, id, record);
    return new Envelope(null, 'Record deleted');
  }
}
