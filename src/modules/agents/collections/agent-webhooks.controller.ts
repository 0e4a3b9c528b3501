import { Body, Controller, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { UuidParamPipe } from '@/common/http/validation';
import { RotatedSecretResponse, RotateSecretDto } from '@/modules/events/dto/webhook.dto';
import { BODY_ERRORS, ROTATE_DESCRIPTION } from '@/modules/events/webhooks.controller';
import { AgentWebhooksService } from './agent-webhooks.service';

/** The rotation of an agent webhook's secret; its other routes are the agent collection `webhooks`. */
@ApiTags('Agent knowledge and rules')
@Controller('api/v1/agents/:uuid/webhooks')
export class AgentWebhookSecretsController {
  constructor(private readonly webhooks: AgentWebhooksService) {}

  @Post(':webhookUuid/rotate-secret')
  @ApiOperation({
    summary: 'Rotate the signing secret of an agent webhook',
    description: ROTATE_DESCRIPTION,
  })
  @ApiEnvelope(RotatedSecretResponse, { errors: [...BODY_ERRORS] })
  rotate(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) agentId: string,
    @Param('webhookUuid', UuidParamPipe) webhookId: string,
    @Body() dto: RotateSecretDto,
  ): Promise<RotatedSecretResponse> {
    return this.webhooks.rotate(ws, agentId, webhookId, dto.secret_key);
  }
}
