import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope, ShortErrorBodyDto } from '@/common/http/api-response.decorator';
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
  @ApiEnvelope(FlowCatalogAgentResponse, { isArray: true })
  @ApiResponse({
    status: 404,
    description: 'No ready agent: {success: false, message, data: []}',
    type: ShortErrorBodyDto,
  })
  catalog(@WorkspaceId() ws: string): Promise<FlowCatalogAgentResponse[]> {
    return this.agents.catalog(ws);
  }
}
