import { Body, Controller, Get, Param, Post, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { ResponseMessage } from '@/common/http/envelope';
import { UuidParamPipe } from '@/common/http/validation';
import { IntentActionResponse, PutIntentActionDto } from './dto/intent-action.dto';
import { IntentActionsService } from './intent-actions.service';

/** The action an intent runs when the model (or the classifier) calls it. */
@ApiTags('Agent knowledge and rules')
@Controller('api/v1/agents/:uuid/intents/:intentUuid/event')
export class IntentActionsController {
  constructor(private readonly actions: IntentActionsService) {}

  @Get()
  @ApiOperation({ summary: "Read an intent's action", description: '404 when the intent has no action yet.' })
  @ApiEnvelope(IntentActionResponse, { errors: ['INVALID_UUID'] })
  get(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) agentId: string,
    @Param('intentUuid', UuidParamPipe) intentId: string,
  ): Promise<IntentActionResponse> {
    return this.actions.get(ws, agentId, intentId);
  }

  @Put()
  @ApiOperation({
    summary: "Set an intent's action (as a draft)",
    description:
      'type webhook {url, auth_token?}, agent {agent_uuid}, scenario {flow_uuid}, app {app: "tables", action: ' +
      '"ai_query", table_uuid, max_results?, query_description?}. Replaces any earlier action, which goes back to ' +
      'draft; only a deployed action runs (otherwise the intent webhook does).',
  })
  @ResponseMessage('Intent action saved')
  @ApiEnvelope(IntentActionResponse, { errors: ['VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID'] })
  put(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) agentId: string,
    @Param('intentUuid', UuidParamPipe) intentId: string,
    @Body() dto: PutIntentActionDto,
  ): Promise<IntentActionResponse> {
    return this.actions.put(ws, agentId, intentId, dto);
  }

  @Post('publish')
  @ApiOperation({
    summary: "Publish an intent's action (draft → deployed)",
    description:
      '409 when it is already deployed, or when its target cannot run: a scenario whose flow is not deployed (or ' +
      'flows are not available), an agent or data table that was deleted.',
  })
  @ResponseMessage('Intent action deployed')
  @ApiEnvelope(IntentActionResponse, { errors: ['CONFLICT', 'INVALID_UUID'], idempotent: false })
  publish(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) agentId: string,
    @Param('intentUuid', UuidParamPipe) intentId: string,
  ): Promise<IntentActionResponse> {
    return this.actions.publish(ws, agentId, intentId);
  }
}
