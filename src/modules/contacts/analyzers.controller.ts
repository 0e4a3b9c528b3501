import { Body, Controller, Get, Param, Put, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { Page, PageQuery } from '@/common/http/pagination';
import { AnalyzersService } from './analyzers.service';
import { AnalyzerResponse, UpdateAnalyzerDto } from './dto/analyzer.dto';

const ID_PARAM = {
  name: 'id',
  description: '`b_<field>` (built-in field), `f_<key>` (custom field) or `p_<stage uuid>` (pipeline stage)',
  example: 'f_plan',
};

/** How memorize writes each contact field and pipeline stage. */
@ApiTags('Contacts')
@Controller('api/v1/analyzers')
export class AnalyzersController {
  constructor(private readonly analyzers: AnalyzersService) {}

  @Get()
  @ApiOperation({
    summary: 'List contact analyzers: built-in fields, then custom fields by key, then pipeline stages',
  })
  @ApiEnvelope(AnalyzerResponse, { paginated: true, errors: ['INVALID_FORMAT'] })
  list(@WorkspaceId() ws: WorkspaceId, @Query() q: PageQuery): Promise<Page<AnalyzerResponse>> {
    return this.analyzers.list(ws, q);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a contact analyzer' })
  @ApiParam(ID_PARAM)
  @ApiEnvelope(AnalyzerResponse)
  get(@WorkspaceId() ws: WorkspaceId, @Param('id') id: string): Promise<AnalyzerResponse> {
    return this.analyzers.get(ws, id);
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Change a contact analyzer (only the keys sent)',
    description:
      '`update_behavior`: `dont_update`, `update_if_empty` (the default), `ask_approval_if_existing`, ' +
      '`manual_approval`, `automatic_update`. For `b_` only `update_behavior` changes (another value is 422); ' +
      '`p_` takes no `example_values`.',
  })
  @ApiParam(ID_PARAM)
  @ApiBody({
    type: UpdateAnalyzerDto,
    examples: {
      customField: {
        value: {
          update_behavior: 'ask_approval_if_existing',
          analysis_goals: 'The plan the customer says they are on or want',
          example_values: 'basic, pro, enterprise',
        },
      },
      builtIn: { value: { update_behavior: 'manual_approval' } },
    },
  })
  @ApiEnvelope(AnalyzerResponse, { errors: ['BAD_REQUEST', 'VALIDATION_ERROR', 'INVALID_FORMAT'] })
  update(
    @WorkspaceId() ws: WorkspaceId,
    @Param('id') id: string,
    @Body() dto: UpdateAnalyzerDto,
  ): Promise<AnalyzerResponse> {
    return this.analyzers.update(ws, id, dto);
  }
}
