import { Body, Controller, Delete, Get, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { Page } from '@/common/http/pagination';
import { UuidParamPipe } from '@/common/http/validation';
import { catalogView } from './catalog';
import {
  AddStepDto,
  CreateFlowDto,
  ListFlowsQuery,
  TestStepDto,
  UpdateFlowDto,
  UpdateStepDto,
} from './dto/flow.dto';
import { FlowCatalogResponse, FlowResponse, StepTestResponse } from './dto/flow.response';
import { flowView } from './flow-view';
import { FlowStepTests } from './flow-step-tests';
import { FlowsService } from './flows.service';

const BODY_ERRORS = ['BAD_REQUEST', 'VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID'] as const;

@ApiTags('Automation flows')
@Controller('api/v1')
export class FlowsController {
  constructor(
    private readonly flows: FlowsService,
    private readonly tests: FlowStepTests,
  ) {}

  @Get('flow/catalog')
  @ApiOperation({
    summary: 'Triggers and actions a step can use, with their config schemas and output examples',
  })
  @ApiEnvelope(FlowCatalogResponse)
  catalog(): FlowCatalogResponse {
    return catalogView() as FlowCatalogResponse;
  }

  @Get('flows')
  @ApiOperation({ summary: 'List flows (newest first; filters status, search)' })
  @ApiEnvelope(FlowResponse, { paginated: true, errors: ['INVALID_FORMAT'] })
  list(@WorkspaceId() ws: WorkspaceId, @Query() q: ListFlowsQuery): Promise<Page<FlowResponse>> {
    return this.flows.list(ws, q);
  }

  @Post('flows')
  @ApiOperation({ summary: 'Create a flow: a draft with no steps' })
  @ApiEnvelope(FlowResponse, { status: 201, errors: [...BODY_ERRORS] })
  create(@WorkspaceId() ws: WorkspaceId, @Body() dto: CreateFlowDto): Promise<FlowResponse> {
    return this.flows.create(ws, dto);
  }

  @Get('flow/:uuid')
  @ApiOperation({ summary: 'Read a flow with its draft steps' })
  @ApiEnvelope(FlowResponse, { errors: ['INVALID_UUID'] })
  async get(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
  ): Promise<FlowResponse> {
    return flowView(await this.flows.get(ws, uuid));
  }

  @Put('flow/:uuid')
  @ApiOperation({ summary: 'Change the name or description' })
  @ApiEnvelope(FlowResponse, { errors: [...BODY_ERRORS] })
  update(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: UpdateFlowDto,
  ): Promise<FlowResponse> {
    return this.flows.update(ws, uuid, dto);
  }

  @Delete('flow/:uuid')
  @ApiOperation({
    summary: 'Delete a flow (409 while deployed: disable it first); its queued executions are cancelled',
  })
  @ApiEnvelope(null, { nullable: true, errors: ['INVALID_UUID', 'CONFLICT'] })
  async remove(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string): Promise<null> {
    await this.flows.remove(ws, uuid);
    return null;
  }

  @Post('flow/:uuid/steps')
  @ApiOperation({
    summary: 'Add a step',
    description:
      'Step 1 is always the trigger. Inserting at position p moves later steps up and rewrites {{stepK.…}} ' +
      'references with K ≥ p, in one transaction. Default position: the end (of the branch with a parent).',
  })
  @ApiEnvelope(FlowResponse, { status: 201, errors: [...BODY_ERRORS, 'CONFLICT'] })
  addStep(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: AddStepDto,
  ): Promise<FlowResponse> {
    return this.flows.addStep(ws, uuid, dto);
  }

  @Patch('flow/:uuid/steps/:stepUuid')
  @ApiOperation({
    summary: 'Change a step (the keys sent: trigger_key or action_key within its kind, name, config)',
  })
  @ApiEnvelope(FlowResponse, { errors: [...BODY_ERRORS, 'CONFLICT'] })
  updateStep(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Param('stepUuid', UuidParamPipe) stepUuid: string,
    @Body() dto: UpdateStepDto,
  ): Promise<FlowResponse> {
    return this.flows.updateStep(ws, uuid, stepUuid, dto);
  }

  @Delete('flow/:uuid/steps/:stepUuid')
  @ApiOperation({
    summary: 'Delete a step with its branch children',
    description:
      'Later steps move down and their references are rewritten; a referenced step is 409 naming the references.',
  })
  @ApiEnvelope(FlowResponse, { errors: ['INVALID_UUID', 'CONFLICT'] })
  removeStep(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Param('stepUuid', UuidParamPipe) stepUuid: string,
  ): Promise<FlowResponse> {
    return this.flows.removeStep(ws, uuid, stepUuid);
  }

  @Post('flow/:uuid/steps/:stepUuid/test')
  @ApiOperation({
    summary: 'Test a step',
    description:
      'Trigger: up to 5 recent matching events as samples (or the data sent; none: 404 with `data: {samples: []}` ' +
      'beside the error). Action: a dry run ' +
      'answering the rendered input (outputs of earlier steps and config overrides in input), or a real run with live.',
  })
  @ApiEnvelope(StepTestResponse, { status: 200, errors: [...BODY_ERRORS, 'CONFLICT'] })
  test(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Param('stepUuid', UuidParamPipe) stepUuid: string,
    @Body() dto: TestStepDto,
  ): Promise<StepTestResponse> {
    return this.tests.test(ws, uuid, stepUuid, dto);
  }
}
