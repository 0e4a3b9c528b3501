import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { Envelope } from '@/common/http/envelope';
import { Page, PageQuery } from '@/common/http/pagination';
import { UuidParamPipe } from '@/common/http/validation';
import { SendWhatsappTextDto, SimulateWhatsappDto } from './dto/requests';
import { ProviderMessageResponse } from '@/modules/conversations/dto/message-view.response';
import { SimulatedInboundResponse } from './dto/message.response';
import {
  CreateTemplateDto,
  ListTemplatesQuery,
  SendTemplateDto,
  TemplateSettingDto,
} from './dto/whatsapp.dto';
import { SyncResultResponse, TemplateResponse, TemplateSettingResponse } from './dto/whatsapp.response';
import { InboundSimulation } from './inbound-simulation';
import { OutboundMessagesService } from './outbound-messages.service';
import { WhatsappTemplateSends } from './whatsapp-template-sends';
import { WhatsappTemplatesService } from './whatsapp-templates.service';

const BODY_ERRORS = ['VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID'] as const;

@ApiTags('WhatsApp')
@Controller('api/v1/whatsapp')
export class WhatsappController {
  constructor(
    private readonly templates: WhatsappTemplatesService,
    private readonly sends: WhatsappTemplateSends,
    private readonly outbound: OutboundMessagesService,
    private readonly simulation: InboundSimulation,
  ) {}

  @Get('templates')
  @ApiOperation({ summary: 'List WhatsApp templates, newest first' })
  @ApiEnvelope(TemplateResponse, { paginated: true, errors: ['INVALID_FORMAT'] })
  list(@WorkspaceId() ws: WorkspaceId, @Query() q: ListTemplatesQuery): Promise<Page<TemplateResponse>> {
    return this.templates.list(ws, q);
  }

  @Post('templates')
  @ApiOperation({ summary: 'Create a template at Meta (answers PENDING; the review moves it)' })
  @ApiEnvelope(TemplateResponse, { status: 201, errors: [...BODY_ERRORS, 'CONFLICT', 'PROVIDER_ERROR'] })
  async create(
    @WorkspaceId() ws: WorkspaceId,
    @Body() dto: CreateTemplateDto,
  ): Promise<Envelope<TemplateResponse>> {
    return new Envelope(await this.templates.create(ws, dto), 'Template created successfully');
  }

  @Post('templates/sync')
  @ApiOperation({ summary: "Pull every template of the workspace's WABAs from Meta" })
  @ApiEnvelope(SyncResultResponse, { status: 200, idempotent: false, errors: ['PROVIDER_ERROR'] })
  sync(@WorkspaceId() ws: WorkspaceId): Promise<SyncResultResponse> {
    return this.templates.sync(ws);
  }

  @Get('templates/:uuid')
  @ApiOperation({ summary: 'Read a template' })
  @ApiEnvelope(TemplateResponse, { errors: ['INVALID_UUID'] })
  read(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) id: string): Promise<TemplateResponse> {
    return this.templates.read(ws, id);
  }

  @Delete('templates/:uuid')
  @ApiOperation({ summary: 'Delete a template here and at Meta; its settings become inactive' })
  @ApiEnvelope(null, { nullable: true, errors: ['INVALID_UUID', 'PROVIDER_ERROR'] })
  async remove(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) id: string): Promise<null> {
    await this.templates.remove(ws, id);
    return null;
  }

  @Get('template-settings')
  @ApiOperation({ summary: 'List template settings' })
  @ApiEnvelope(TemplateSettingResponse, { paginated: true, errors: ['INVALID_FORMAT'] })
  listSettings(
    @WorkspaceId() ws: WorkspaceId,
    @Query() q: PageQuery,
  ): Promise<Page<TemplateSettingResponse>> {
    return this.sends.listSettings(ws, q);
  }

  @Post('template-settings')
  @ApiOperation({ summary: "Create a template setting (the parameters' tokens)" })
  @ApiEnvelope(TemplateSettingResponse, { status: 201, errors: [...BODY_ERRORS] })
  createSetting(
    @WorkspaceId() ws: WorkspaceId,
    @Body() dto: TemplateSettingDto,
  ): Promise<TemplateSettingResponse> {
    return this.sends.saveSetting(ws, dto);
  }

  @Get('template-settings/:uuid')
  @ApiOperation({ summary: 'Read a template setting' })
  @ApiEnvelope(TemplateSettingResponse, { errors: ['INVALID_UUID'] })
  readSetting(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
  ): Promise<TemplateSettingResponse> {
    return this.sends.readSetting(ws, id);
  }

  @Put('template-settings/:uuid')
  @ApiOperation({ summary: 'Replace a template setting' })
  @ApiEnvelope(TemplateSettingResponse, { errors: [...BODY_ERRORS] })
  replaceSetting(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: TemplateSettingDto,
  ): Promise<TemplateSettingResponse> {
    return this.sends.saveSetting(ws, dto, id);
  }

  @Delete('template-settings/:uuid')
  @ApiOperation({ summary: 'Delete a template setting' })
  @ApiEnvelope(null, { nullable: true, errors: ['INVALID_UUID'] })
  async removeSetting(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
  ): Promise<null> {
    await this.sends.removeSetting(ws, id);
    return null;
  }

  @Post('template')
  @ApiOperation({
    summary: 'Send an APPROVED template (allowed outside the 24-hour window)',
    description: "Also takes the source product's camelCase body (agentId, templateId, phoneNumber as to).",
  })
  @ApiEnvelope(ProviderMessageResponse, {
    status: 201,
    errors: [...BODY_ERRORS, 'CONFLICT', 'BLACKLISTED', 'TEMPLATE_NOT_APPROVED'],
  })
  async sendTemplate(
    @WorkspaceId() ws: WorkspaceId,
    @Body() dto: SendTemplateDto,
  ): Promise<Envelope<ProviderMessageResponse>> {
    return new Envelope(await this.sends.send(ws, dto), 'WhatsApp template message sent successfully');
  }

  @Post('messages')
  @ApiOperation({ summary: "Send WhatsApp text inside the 24-hour window of the contact's last message" })
  @ApiEnvelope(ProviderMessageResponse, {
    status: 201,
    errors: [...BODY_ERRORS, 'CONFLICT', 'BLACKLISTED', 'OUTSIDE_MESSAGING_WINDOW'],
  })
  async sendText(
    @WorkspaceId() ws: WorkspaceId,
    @Body() dto: SendWhatsappTextDto,
  ): Promise<Envelope<ProviderMessageResponse>> {
    return new Envelope(await this.outbound.sendWhatsappText(ws, dto), 'WhatsApp message sent successfully');
  }

  @Post('simulate-inbound')
  @ApiOperation({ summary: 'Sandbox: a customer writes to a sandbox WhatsApp number; runs synchronously' })
  @ApiEnvelope(SimulatedInboundResponse, {
    status: 201,
    idempotent: false,
    errors: ['VALIDATION_ERROR', 'INVALID_FORMAT', 'CONFLICT'],
  })
  simulate(
    @WorkspaceId() ws: WorkspaceId,
    @Body() dto: SimulateWhatsappDto,
  ): Promise<SimulatedInboundResponse> {
    return this.simulation.run(ws, 'whatsapp', { to: dto.to, from: dto.from, text: dto.text });
  }
}
