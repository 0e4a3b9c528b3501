import { Body, Controller, Headers, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '@/common/auth/public.decorator';
import { ApiErrors } from '@/common/http/api-response.decorator';
import { RawResponse } from '@/common/http/envelope';
import { AppException } from '@/common/errors/app.exception';
import { HookAccepted } from './dto/flow.response';
import { FlowExecutionsService } from './flow-executions.service';
import { FlowsRepository } from './flows.repository';

const HIDDEN_HEADERS = new Set(['authorization', 'cookie', 'host', 'content-length', 'connection']);

/** The webhook trigger: a deployed flow's secret URL starts an execution with `{headers, query, body}`. */
@ApiTags('Provider hooks')
@Public()
@Controller('hooks/v1/flows')
export class FlowHooksController {
  constructor(
    private readonly flows: FlowsRepository,
    private readonly executions: FlowExecutionsService,
  ) {}

  @Post(':flowUuid/:token')
  @HttpCode(202)
  @RawResponse()
  @ApiOperation({
    summary: 'Start a deployed webhook-triggered flow',
    description:
      'JSON up to 1 MB; 404 unless the flow is deployed with a webhook trigger and the token is its own.',
    security: [],
  })
  @ApiParam({ name: 'flowUuid', schema: { type: 'string', format: 'uuid' } })
  @ApiParam({ name: 'token', schema: { type: 'string', pattern: '^[0-9a-f]{32}$' } })
  @ApiResponse({ status: 202, description: 'Execution queued', type: HookAccepted })
  @ApiErrors('RESOURCE_NOT_FOUND', 'BAD_REQUEST', 'INVALID_FORMAT', 'PAYLOAD_TOO_LARGE')
  async fire(
    @Param('flowUuid') flowUuid: string,
    @Param('token') token: string,
    @Headers() headers: Record<string, string>,
    @Query() query: Record<string, unknown>,
    @Body() body: unknown,
  ): Promise<HookAccepted> {
    const flow =
      /^[0-9a-f-]{36}$/i.test(flowUuid) && /^[0-9a-f]{32}$/.test(token)
        ? await this.flows.byWebhookToken(flowUuid.toLowerCase(), token)
        : null;
    if (!flow) throw AppException.notFound('Flow');
    const kept = Object.fromEntries(
      Object.entries(headers).filter(([k]) => !HIDDEN_HEADERS.has(k.toLowerCase())),
    );
    const id = await this.executions.startDeployed(flow.workspace_id, flow.id, {
      headers: kept,
      query,
      body: body ?? null,
    });
    return { execution_uuid: id };
  }
}
