import { Body, Controller, Delete, Get, Param, Post, Put } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { ResponseMessage } from '@/common/http/envelope';
import { UuidParamPipe } from '@/common/http/validation';
import { AgentsService } from './agents.service';
import { EvaluationSettingsBody, EvaluationSettingsResponse } from './dto/evaluation-settings.dto';
import {
  EffectiveEvaluationSettings,
  EvaluationSettingsService,
} from './settings/evaluation-settings.service';

const EVAL_ERRORS = ['VALIDATION_ERROR', 'INVALID_FORMAT'] as const;

/** The workspace default evaluation settings and each agent's override (`/evaluate/*`, `/agents/{uuid}/evaluate*`). */
@ApiTags('Evaluation and memorize settings')
@Controller('api/v1')
export class EvaluationSettingsController {
  constructor(
    private readonly agents: AgentsService,
    private readonly evaluation: EvaluationSettingsService,
  ) {}

  @Get('evaluate/default')
  @ApiOperation({ summary: 'The workspace default evaluation settings (factory values until changed)' })
  @ApiEnvelope(EvaluationSettingsResponse)
  getEvaluationDefault(@WorkspaceId() ws: WorkspaceId): Promise<EffectiveEvaluationSettings> {
    return this.evaluation.getDefault(ws);
  }

  @Put('evaluate/default')
  @ApiOperation({ summary: 'Merge the keys sent into the workspace default evaluation settings' })
  @ApiBody({ type: EvaluationSettingsBody })
  @ApiEnvelope(EvaluationSettingsResponse, { errors: [...EVAL_ERRORS] })
  putEvaluationDefault(
    @WorkspaceId() ws: WorkspaceId,
    @Body() body: unknown,
  ): Promise<EffectiveEvaluationSettings> {
    return this.evaluation.updateDefault(ws, body);
  }

  @Get('agents/:uuid/evaluate')
  @ApiOperation({
    summary: "The agent's effective evaluation settings, with source (default or agent) and version",
  })
  @ApiEnvelope(EvaluationSettingsResponse, { errors: ['INVALID_UUID'] })
  async getAgentEvaluation(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
  ): Promise<EffectiveEvaluationSettings> {
    await this.agents.get(ws, id);
    return this.evaluation.effectiveFor(ws, id);
  }

  @Post('agents/:uuid/evaluate/assign')
  @ResponseMessage('Assigned')
  @ApiOperation({
    summary: 'Give the agent its own override, a copy of the default (an existing one is kept)',
  })
  @ApiEnvelope(EvaluationSettingsResponse, { errors: ['INVALID_UUID'], idempotent: false })
  async assignEvaluation(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
  ): Promise<EffectiveEvaluationSettings> {
    await this.agents.get(ws, id);
    return this.evaluation.assign(ws, id);
  }

  @Put('agents/:uuid/evaluate')
  @ApiOperation({
    summary: "Merge the keys sent into the agent's override (created from the default if missing)",
  })
  @ApiBody({ type: EvaluationSettingsBody })
  @ApiEnvelope(EvaluationSettingsResponse, { errors: [...EVAL_ERRORS, 'INVALID_UUID'] })
  async putAgentEvaluation(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() body: unknown,
  ): Promise<EffectiveEvaluationSettings> {
    await this.agents.get(ws, id);
    return this.evaluation.updateForAgent(ws, id, body);
  }

  @Delete('agents/:uuid/evaluate')
  @ResponseMessage('Reverted to the default')
  @ApiOperation({ summary: "Remove the agent's override: it inherits the default again" })
  @ApiEnvelope(EvaluationSettingsResponse, { errors: ['INVALID_UUID'] })
  async deleteAgentEvaluation(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
  ): Promise<EffectiveEvaluationSettings> {
    await this.agents.get(ws, id);
    return this.evaluation.revert(ws, id);
  }
}
