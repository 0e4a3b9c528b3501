import { Controller, Get, Param, ParseIntPipe, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { Page, PageQuery } from '@/common/http/pagination';
import { UuidParamPipe } from '@/common/http/validation';
import { AppException } from '@/common/errors/app.exception';
import { ListExecutionsQuery } from './dto/flow.dto';
import { ExecutionResponse, FlowResponse, FlowVersionResponse } from './dto/flow.response';
import { FlowExecutionsService } from './flow-executions.service';
import { FlowStatesService } from './flow-states.service';

const versionPipe = new ParseIntPipe({
  exceptionFactory: () => AppException.invalid('n', 'n must be a positive integer'),
});

@ApiTags('Automation flows')
@Controller('api/v1/flow/:uuid')
export class FlowStatesController {
  constructor(
    private readonly states: FlowStatesService,
    private readonly executions: FlowExecutionsService,
  ) {}

  @Post('deploy')
  @ApiOperation({
    summary: 'Deploy the draft as a new version',
    description: 'Every step valid (422 naming steps.<n>.config.<key>), a trigger and at least one action.',
  })
  @ApiEnvelope(FlowResponse, { status: 200, errors: ['INVALID_UUID', 'VALIDATION_ERROR', 'INVALID_FORMAT'] })
  deploy(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string): Promise<FlowResponse> {
    return this.states.deploy(ws, uuid);
  }

  @Post('disable')
  @ApiOperation({ summary: 'Stop the triggers of a deployed flow (queued executions still run)' })
  @ApiEnvelope(FlowResponse, { status: 200, errors: ['INVALID_UUID', 'CONFLICT'] })
  disable(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string): Promise<FlowResponse> {
    return this.states.disable(ws, uuid);
  }

  @Post('enable')
  @ApiOperation({ summary: 'Turn a disabled flow back on with the same version' })
  @ApiEnvelope(FlowResponse, { status: 200, errors: ['INVALID_UUID', 'CONFLICT'] })
  enable(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string): Promise<FlowResponse> {
    return this.states.enable(ws, uuid);
  }

  @Post('undeploy')
  @ApiOperation({ summary: 'Back to draft (live_version null; versions kept)' })
  @ApiEnvelope(FlowResponse, { status: 200, errors: ['INVALID_UUID', 'CONFLICT'] })
  undeploy(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
  ): Promise<FlowResponse> {
    return this.states.undeploy(ws, uuid);
  }

  @Get('versions')
  @ApiOperation({ summary: 'Deployed versions, newest first' })
  @ApiEnvelope(FlowVersionResponse, { paginated: true, errors: ['INVALID_UUID', 'INVALID_FORMAT'] })
  versions(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Query() q: PageQuery,
  ): Promise<Page<FlowVersionResponse>> {
    return this.states.listVersions(ws, uuid, q);
  }

  @Get('versions/:n')
  @ApiOperation({ summary: 'One deployed version' })
  @ApiEnvelope(FlowVersionResponse, { errors: ['INVALID_UUID', 'INVALID_FORMAT'] })
  version(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Param('n', versionPipe) n: number,
  ): Promise<FlowVersionResponse> {
    return this.states.version(ws, uuid, n);
  }

  @Post('versions/:n/restore')
  @ApiOperation({ summary: 'Copy version n into the draft (what is live does not change)' })
  @ApiEnvelope(FlowResponse, { status: 200, errors: ['INVALID_UUID', 'INVALID_FORMAT'] })
  restore(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Param('n', versionPipe) n: number,
  ): Promise<FlowResponse> {
    return this.states.restore(ws, uuid, n);
  }

  @Get('executions')
  @ApiOperation({ summary: 'Executions of the flow, newest first (without steps; filters status, from, to)' })
  @ApiEnvelope(ExecutionResponse, { paginated: true, errors: ['INVALID_UUID', 'INVALID_FORMAT'] })
  list(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Query() q: ListExecutionsQuery,
  ): Promise<Page<ExecutionResponse>> {
    return this.executions.list(ws, uuid, q);
  }

  @Get('executions/:executionUuid')
  @ApiOperation({
    summary: 'One execution with its per-step input, output, attempts and timing (secrets masked)',
  })
  @ApiEnvelope(ExecutionResponse, { errors: ['INVALID_UUID'] })
  get(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Param('executionUuid', UuidParamPipe) executionUuid: string,
  ): Promise<ExecutionResponse> {
    return this.executions.get(ws, uuid, executionUuid);
  }

  @Post('executions/:executionUuid/retry')
  @ApiOperation({
    summary: 'Retry a failed execution from the step that failed',
    description:
      'A new execution (retry_of) on the same version reusing the outputs of the steps that succeeded; other statuses: 409.',
  })
  @ApiEnvelope(ExecutionResponse, { status: 201, errors: ['INVALID_UUID', 'CONFLICT'] })
  retry(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Param('executionUuid', UuidParamPipe) executionUuid: string,
  ): Promise<ExecutionResponse> {
    return this.executions.retry(ws, uuid, executionUuid);
  }
}
