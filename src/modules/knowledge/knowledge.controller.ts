import { Body, Controller, Delete, Get, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { Envelope } from '@/common/http/envelope';
import { UuidParamPipe } from '@/common/http/validation';
import { AssignDto, SearchQuery } from './dto/import.dto';
import { DataSourceDetailResponse, SearchResultResponse } from './dto/responses';
import { KnowledgeService } from './knowledge.service';

@ApiTags('Data')
@Controller('api/v1')
export class KnowledgeController {
  constructor(private readonly service: KnowledgeService) {}

  @Post('data/:uuid/assign')
  @ApiOperation({ summary: 'Make a data source available to an agent (visible to it after the next sync)' })
  @ApiEnvelope(DataSourceDetailResponse, { errors: ['INVALID_UUID', 'VALIDATION_ERROR'] })
  async assign(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: AssignDto,
  ): Promise<Envelope<DataSourceDetailResponse>> {
    return new Envelope(
      await this.service.assign(ws, id, dto.agent_uuid.toLowerCase()),
      'Data source assigned',
    );
  }

  @Delete('data/:uuid/assign/:agentUuid')
  @ApiOperation({ summary: 'Take a data source away from an agent (its indexed copy goes at once)' })
  @ApiEnvelope(DataSourceDetailResponse, { errors: ['INVALID_UUID'] })
  async unassign(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
    @Param('agentUuid', UuidParamPipe) agentId: string,
  ): Promise<Envelope<DataSourceDetailResponse>> {
    return new Envelope(await this.service.unassign(ws, id, agentId), 'Data source unassigned');
  }

  @Post('data/:uuid/sync')
  @ApiOperation({ summary: "Refresh every assigned agent's index of this data source (runs as a job)" })
  @ApiEnvelope(DataSourceDetailResponse, { errors: ['INVALID_UUID'] })
  async sync(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
  ): Promise<Envelope<DataSourceDetailResponse>> {
    return new Envelope(await this.service.sync(ws, id), 'Sync queued');
  }

  @Get('agents/:uuid/knowledge/search')
  @ApiOperation({
    summary: 'Search what the agent can see: its assigned data, as of the last sync, best first',
  })
  @ApiEnvelope(SearchResultResponse, {
    isArray: true,
    errors: ['INVALID_UUID', 'VALIDATION_ERROR', 'INVALID_FORMAT'],
  })
  search(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) agentId: string,
    @Query() query: SearchQuery,
  ): Promise<SearchResultResponse[]> {
    return this.service.search(ws, agentId, query.q, query.limit);
  }
}
