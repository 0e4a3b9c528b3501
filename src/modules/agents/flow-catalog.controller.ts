import { Controller, Get } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope, ErrorBody, ShortErrorBodyDto } from '@/common/http/api-response.decorator';
import { ShortErrorBody } from '@/common/http/short-error-body';
import { AgentsService } from './agents.service';
import { FlowCatalogAgentResponse } from './dto/agent.response';

@ApiTags('Flow catalog')
@Controller('api/v1/flow/agents')
export class FlowCatalogController {
  constructor(private readonly agents: AgentsService) {}

  @Get()
  @ShortErrorBody((status) => status === 404)
  @ApiOperation({ summary: 'Agents a flow can use: only those with status ready' })
  // Declared after the envelope, whose general 404 it replaces: this route's own 404 has the short body.
  @ApiExtraModels(ShortErrorBodyDto, ErrorBody)
  @ApiResponse({
    status: 404,
    description: 'No ready agent: {success: false, message, data: []}; RESOURCE_NOT_FOUND: unknown workspace',
    schema: { oneOf: [{ $ref: getSchemaPath(ShortErrorBodyDto) }, { $ref: getSchemaPath(ErrorBody) }] },
  })
  @ApiEnvelope(FlowCatalogAgentResponse, { isArray: true })
  catalog(@WorkspaceId() ws: WorkspaceId): Promise<FlowCatalogAgentResponse[]> {
    return this.agents.catalog(ws);
  }
}
