import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { ResponseMessage } from '@/common/http/envelope';
import { Page } from '@/common/http/pagination';
import { UuidParamPipe } from '@/common/http/validation';
import { CampaignAction, CampaignTransitions } from '../engine/campaign-transitions';
import { CampaignsService } from './campaigns.service';
import {
  AssignRuleDto,
  AttachPoolsDto,
  AttachPoolsResponse,
  CampaignDetailResponse,
  CampaignListQuery,
  CampaignResponse,
  CampaignRuleResponse,
  CreateCampaignDto,
  UpdateCampaignDto,
} from './dto/campaign.dto';

const WRITE_ERRORS = ['BAD_REQUEST', 'VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID'] as const;

@ApiTags('Campaigns')
@Controller('api/v1/campaigns')
export class CampaignsController {
  constructor(
    private readonly service: CampaignsService,
    private readonly transitions: CampaignTransitions,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List campaigns (newest first)' })
  @ApiEnvelope(CampaignResponse, { paginated: true, errors: ['INVALID_FORMAT', 'INVALID_UUID'] })
  list(@WorkspaceId() ws: WorkspaceId, @Query() q: CampaignListQuery): Promise<Page<CampaignResponse>> {
    return this.service.list(ws, q);
  }

  @Post()
  @ApiOperation({ summary: 'Create a campaign (at draft)' })
  @ApiEnvelope(CampaignResponse, { status: 201, errors: [...WRITE_ERRORS] })
  create(@WorkspaceId() ws: WorkspaceId, @Body() dto: CreateCampaignDto): Promise<CampaignResponse> {
    return this.service.create(ws, dto);
  }

  @Get(':uuid')
  @ApiOperation({ summary: 'Read a campaign with its rule, effective policy and task statistics' })
  @ApiEnvelope(CampaignDetailResponse, { errors: ['INVALID_UUID'] })
  get(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
  ): Promise<CampaignDetailResponse> {
    return this.service.get(ws, uuid);
  }

  @Put(':uuid')
  @ApiOperation({
    summary: 'Change a campaign (the keys sent)',
    description:
      'Draft: any key. Running or paused: name, description, end_at, window, retry, max_concurrency, variables, ' +
      'metadata (applied to tasks not yet started); other keys 409. Ended: 409.',
  })
  @ApiEnvelope(CampaignResponse, { errors: [...WRITE_ERRORS, 'CONFLICT'] })
  update(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: UpdateCampaignDto,
  ): Promise<CampaignResponse> {
    return this.service.update(ws, uuid, dto);
  }

  @Delete(':uuid')
  @ApiOperation({ summary: 'Delete a draft, completed or cancelled campaign' })
  @ApiEnvelope(null, { nullable: true, errors: ['INVALID_UUID', 'CONFLICT'] })
  async remove(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string): Promise<null> {
    await this.service.remove(ws, uuid);
    return null;
  }

  @Post(':uuid/pools')
  @ApiOperation({
    summary: 'Attach pools',
    description:
      'Running or paused: tasks for their members are created in the same transaction. Ended: 409.',
  })
  @ApiEnvelope(AttachPoolsResponse, { status: 200, errors: [...WRITE_ERRORS, 'CONFLICT'] })
  attach(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: AttachPoolsDto,
  ): Promise<AttachPoolsResponse> {
    return this.service.attachPools(ws, uuid, dto.pool_uuids);
  }

  @Delete(':uuid/pools/:poolUuid')
  @ApiOperation({ summary: 'Detach a pool; its tasks in this campaign that have not started are cancelled' })
  @ApiEnvelope(null, { nullable: true, errors: ['INVALID_UUID'] })
  async detach(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Param('poolUuid', UuidParamPipe) poolUuid: string,
  ): Promise<null> {
    await this.service.detachPool(ws, uuid, poolUuid);
    return null;
  }

  @Put(':uuid/rule')
  @ResponseMessage('Rule assigned to campaign')
  @ApiOperation({ summary: "Assign the campaign's rule" })
  @ApiEnvelope(CampaignRuleResponse, { errors: [...WRITE_ERRORS, 'CONFLICT'] })
  setRule(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: AssignRuleDto,
  ): Promise<CampaignRuleResponse> {
    return this.service.setRule(ws, uuid, dto.rule_uuid);
  }

  @Delete(':uuid/rule')
  @ResponseMessage('Rule removed from campaign')
  @ApiOperation({ summary: "Remove the campaign's rule" })
  @ApiEnvelope(CampaignRuleResponse, { errors: ['INVALID_UUID', 'CONFLICT'] })
  clearRule(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
  ): Promise<CampaignRuleResponse> {
    return this.service.setRule(ws, uuid, null);
  }

  @Post(':uuid/start')
  @ResponseMessage('Campaign started')
  @ApiOperation({
    summary: 'Start a draft campaign',
    description:
      'Needs a pool, a number and, for WhatsApp, an approved template (else 422 naming the field); one task per ' +
      'member is created. Any other state: 409.',
  })
  @ApiEnvelope(CampaignResponse, { status: 200, errors: ['INVALID_UUID', 'VALIDATION_ERROR', 'CONFLICT'] })
  start(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
  ): Promise<CampaignResponse> {
    return this.move(ws, uuid, 'start');
  }

  @Post(':uuid/pause')
  @ResponseMessage('Campaign paused')
  @ApiOperation({ summary: 'Pause a running campaign (tasks not started go on hold; live calls go on)' })
  @ApiEnvelope(CampaignResponse, { status: 200, errors: ['INVALID_UUID', 'CONFLICT'] })
  pause(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
  ): Promise<CampaignResponse> {
    return this.move(ws, uuid, 'pause');
  }

  @Post(':uuid/resume')
  @ResponseMessage('Campaign resumed')
  @ApiOperation({ summary: 'Resume a paused campaign' })
  @ApiEnvelope(CampaignResponse, { status: 200, errors: ['INVALID_UUID', 'CONFLICT'] })
  resume(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
  ): Promise<CampaignResponse> {
    return this.move(ws, uuid, 'resume');
  }

  @Post(':uuid/cancel')
  @ResponseMessage('Campaign cancelled')
  @ApiOperation({ summary: 'Cancel a campaign (tasks not started are cancelled; live calls go on)' })
  @ApiEnvelope(CampaignResponse, { status: 200, errors: ['INVALID_UUID', 'CONFLICT'] })
  cancel(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
  ): Promise<CampaignResponse> {
    return this.move(ws, uuid, 'cancel');
  }

  private move(ws: WorkspaceId, uuid: string, action: CampaignAction): Promise<CampaignResponse> {
    return this.transitions.apply(ws, uuid, action);
  }
}
