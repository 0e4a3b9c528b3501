import { Body, Controller, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { Page, PageQuery } from '@/common/http/pagination';
import { UuidParamPipe } from '@/common/http/validation';
import {
  DeliveryResponse,
  ListDeliveriesQuery,
  RotatedSecretResponse,
  RotateSecretDto,
  WebhookResponse,
} from './dto/webhook.dto';
import { UpdateWebhookDto, WebhookDto } from './dto/webhook-body.dto';
import { WebhooksService } from './webhooks.service';

export const BODY_ERRORS = ['VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID'] as const;
/** What a rotation does, for workspace and agent webhooks alike. */
export const ROTATE_DESCRIPTION =
  'Sets secret_key (or a generated whsec_ secret, shown in this answer only). For 24 hours deliveries carry ' +
  'two signatures, new then old, separated by a space.';
const SIGNING =
  'Deliveries carry webhook-id (the same on every retry), webhook-timestamp and, with a secret, ' +
  'webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">.';

@ApiTags('Webhooks')
@Controller('api/v1/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get('deliveries')
  @ApiOperation({
    summary: 'The delivery log, newest first',
    description:
      'One item per event and subscription (workspace and agent webhooks), with every attempt: status code, ' +
      'duration, response excerpt, error and next retry. Filters: webhook_uuid, status, type, from, to (created_at).',
  })
  @ApiEnvelope(DeliveryResponse, { paginated: true, errors: ['INVALID_FORMAT', 'INVALID_UUID'] })
  deliveries(
    @WorkspaceId() ws: WorkspaceId,
    @Query() query: ListDeliveriesQuery,
  ): Promise<Page<DeliveryResponse>> {
    return this.webhooks.listDeliveries(ws, query);
  }

  @Post('deliveries/:uuid/redeliver')
  @ApiOperation({
    summary: 'Send a finished delivery again',
    description:
      'Puts a succeeded or failed delivery back in line with a fresh retry budget and the same webhook-id. ' +
      'A delivery still pending: 409 CONFLICT.',
  })
  @ApiEnvelope(DeliveryResponse, { errors: ['INVALID_UUID', 'CONFLICT'] })
  redeliver(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
  ): Promise<DeliveryResponse> {
    return this.webhooks.redeliver(ws, id);
  }

  @Get()
  @ApiOperation({ summary: 'List workspace webhooks (every agent’s events), oldest first' })
  @ApiEnvelope(WebhookResponse, { paginated: true, errors: ['INVALID_FORMAT'] })
  list(@WorkspaceId() ws: WorkspaceId, @Query() query: PageQuery): Promise<Page<WebhookResponse>> {
    return this.webhooks.list(ws, query);
  }

  @Post()
  @ApiOperation({
    summary: 'Add a workspace webhook',
    description:
      'Same body as agent webhooks. At most 20 per workspace (409 WEBHOOK_LIMIT_REACHED); secret_key is stored ' +
      `encrypted and never returned. ${SIGNING}`,
  })
  @ApiEnvelope(WebhookResponse, { status: 201, errors: [...BODY_ERRORS, 'WEBHOOK_LIMIT_REACHED'] })
  create(@WorkspaceId() ws: WorkspaceId, @Body() dto: WebhookDto): Promise<WebhookResponse> {
    return this.webhooks.create(ws, dto);
  }

  @Get(':uuid')
  @ApiOperation({ summary: 'Read a workspace webhook' })
  @ApiEnvelope(WebhookResponse, { errors: ['INVALID_UUID'] })
  read(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) id: string): Promise<WebhookResponse> {
    return this.webhooks.get(ws, id);
  }

  @Patch(':uuid')
  @ApiOperation({
    summary: 'Change a workspace webhook (only the keys sent)',
    description:
      'secret_key replaces the secret at once (null removes it); use rotate-secret for an overlap.',
  })
  @ApiEnvelope(WebhookResponse, { errors: [...BODY_ERRORS] })
  update(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: UpdateWebhookDto,
  ): Promise<WebhookResponse> {
    return this.webhooks.update(ws, id, dto);
  }

  @Delete(':uuid')
  @ApiOperation({ summary: 'Delete a workspace webhook; its pending deliveries fail without being sent' })
  @ApiEnvelope(null, { nullable: true, errors: ['INVALID_UUID'] })
  async remove(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) id: string): Promise<null> {
    await this.webhooks.remove(ws, id);
    return null;
  }

  @Post(':uuid/rotate-secret')
  @ApiOperation({
    summary: 'Rotate the signing secret',
    description: ROTATE_DESCRIPTION,
  })
  @ApiEnvelope(RotatedSecretResponse, { errors: [...BODY_ERRORS] })
  rotate(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: RotateSecretDto,
  ): Promise<RotatedSecretResponse> {
    return this.webhooks.rotate(ws, id, dto.secret_key);
  }
}
