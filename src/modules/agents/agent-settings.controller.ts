import { Body, Controller, Get, Param, Post, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { ResponseMessage } from '@/common/http/envelope';
import { UuidParamPipe } from '@/common/http/validation';
import { AgentsService } from './agents.service';
import { MemorizeSettingsDto, MemorizeSettingsResponse } from './dto/settings.dto';
import { EffectiveMemorizeSettings, MemorizeSettingsService } from './settings/memorize-settings.service';

const EVAL_ERRORS = ['VALIDATION_ERROR', 'INVALID_FORMAT'] as const;

@ApiTags('Evaluation and memorize settings')
@Controller('api/v1')
export class AgentSettingsController {
  constructor(
    private readonly agents: AgentsService,
    private readonly memorize: MemorizeSettingsService,
  ) {}

  @Get('memorize/default')
  @ApiOperation({ summary: 'The workspace default memorize settings' })
  @ApiEnvelope(MemorizeSettingsResponse)
  getMemorizeDefault(@WorkspaceId() ws: WorkspaceId): Promise<EffectiveMemorizeSettings> {
    return this.memorize.getDefault(ws);
  }

  @Put('memorize/default')
  @ApiOperation({ summary: 'Change the workspace default memorize settings (each block merged key by key)' })
  @ApiEnvelope(MemorizeSettingsResponse, { errors: [...EVAL_ERRORS] })
  putMemorizeDefault(
    @WorkspaceId() ws: WorkspaceId,
    @Body() dto: MemorizeSettingsDto,
  ): Promise<EffectiveMemorizeSettings> {
    return this.memorize.updateDefault(ws, dto);
  }

  @Get('agents/:uuid/memorize')
  @ApiOperation({ summary: "The agent's memorize settings, with source (default or agent)" })
  @ApiEnvelope(MemorizeSettingsResponse, { errors: ['INVALID_UUID'] })
  async getAgentMemorize(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
  ): Promise<EffectiveMemorizeSettings> {
    await this.agents.get(ws, id);
    return this.memorize.effectiveFor(ws, id);
  }

  @Put('agents/:uuid/memorize')
  @ApiOperation({
    summary: "Change the agent's memorize settings",
    description:
      'Without an override, one is created from the workspace default first, then the changes applied.',
  })
  @ApiEnvelope(MemorizeSettingsResponse, { errors: [...EVAL_ERRORS, 'INVALID_UUID'] })
  async putAgentMemorize(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: MemorizeSettingsDto,
  ): Promise<EffectiveMemorizeSettings> {
    await this.agents.get(ws, id);
    return this.memorize.updateForAgent(ws, id, dto);
  }

  @Post('agents/:uuid/memorize/reset')
  @ResponseMessage('Reset to factory defaults')
  @ApiOperation({
    summary: "Reset the agent's memorize settings to factory defaults",
    description: 'Creates the override first when missing; the workspace default is untouched.',
  })
  @ApiEnvelope(MemorizeSettingsResponse, { errors: ['INVALID_UUID'], idempotent: false })
  async resetAgentMemorize(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
  ): Promise<EffectiveMemorizeSettings> {
    await this.agents.get(ws, id);
    return this.memorize.reset(ws, id);
  }
}
