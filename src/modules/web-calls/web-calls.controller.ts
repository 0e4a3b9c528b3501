import { Body, Controller, Get, Post, Put, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { Envelope } from '@/common/http/envelope';
import { CreateWebCallDto, WebCallSettingsDto } from './dto/requests';
import { WebCallResponse, WebCallSettingsResponse } from './dto/responses';
import { WebCallsService } from './web-calls.service';

@ApiTags('Web calls')
@Controller('api/v1/web-calls')
export class WebCallsController {
  constructor(private readonly webCalls: WebCallsService) {}

  @Post()
  @ApiOperation({
    summary:
      'Start a call the customer takes from a browser (answers the call at queued and its client token)',
    description:
      'A call of communication web: counted by the concurrency limit, ended, recorded, evaluated and reported as ' +
      'every call, with the same live actions (forward is 409). The client token opens the call page (page_url) or ' +
      'the socket (websocket_url) once, within 10 minutes; until then the call rings, after that it ends no-answer. ' +
      'Hand page_url (or the token) to the customer’s browser: never the API token.',
  })
  @ApiEnvelope(WebCallResponse, {
    status: 201,
    errors: [
      'VALIDATION_ERROR',
      'INVALID_FORMAT',
      'INVALID_UUID',
      'CONFLICT',
      'CONCURRENCY_LIMIT_EXCEEDED',
      'RATE_LIMIT_EXCEEDED',
    ],
  })
  async start(
    @WorkspaceId() ws: WorkspaceId,
    @Body() dto: CreateWebCallDto,
    @Req() req: Request,
  ): Promise<Envelope<WebCallResponse>> {
    return new Envelope(await this.webCalls.start(ws, dto, req.ip ?? 'unknown'), 'Web call created');
  }

  @Get('settings')
  @ApiOperation({ summary: "The page origins allowed to open the workspace's web calls" })
  @ApiEnvelope(WebCallSettingsResponse)
  settings(@WorkspaceId() ws: WorkspaceId): Promise<WebCallSettingsResponse> {
    return this.webCalls.settings(ws);
  }

  @Put('settings')
  @ApiOperation({
    summary: "Set the page origins allowed to open the workspace's web calls",
    description:
      'Replaces the list. A page of another origin can neither open a web call’s socket (403) nor frame the call ' +
      'page (Content-Security-Policy frame-ancestors).',
  })
  @ApiEnvelope(WebCallSettingsResponse, { errors: ['VALIDATION_ERROR', 'INVALID_FORMAT'] })
  async setSettings(
    @WorkspaceId() ws: WorkspaceId,
    @Body() dto: WebCallSettingsDto,
  ): Promise<Envelope<WebCallSettingsResponse>> {
    return new Envelope(await this.webCalls.setSettings(ws, dto.allowed_origins), 'Web call settings saved');
  }
}
