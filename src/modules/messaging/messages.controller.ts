import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { Envelope } from '@/common/http/envelope';
import { UuidParamPipe } from '@/common/http/validation';
import { SendSmsDto, SimulateSmsDto } from './dto/requests';
import { ProviderMessageResponse } from '@/modules/conversations/dto/message-view.response';
import { SimulatedInboundResponse } from './dto/message.response';
import { InboundSimulation } from './inbound-simulation';
import { MessageStatusService } from './message-status.service';
import { OutboundMessagesService } from './outbound-messages.service';

@ApiTags('Messaging')
@Controller('api/v1')
export class MessagesController {
  constructor(
    private readonly status: MessageStatusService,
    private readonly outbound: OutboundMessagesService,
    private readonly simulation: InboundSimulation,
  ) {}

  @Get('messages/:uuid')
  @ApiOperation({ summary: 'Read a message with its delivery status' })
  @ApiEnvelope(ProviderMessageResponse, { errors: ['INVALID_UUID'] })
  read(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
  ): Promise<ProviderMessageResponse> {
    return this.status.view(ws, id);
  }

  @Post('sms/send')
  @ApiOperation({
    summary: "Send an SMS from the agent's number (answers at queued; the provider is called in a job)",
    description:
      "Also takes the source product's camelCase body (agentId, phoneNumber as to, message as body); with both " +
      'spellings the snake_case one wins.',
  })
  @ApiEnvelope(ProviderMessageResponse, {
    status: 201,
    errors: ['VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID', 'CONFLICT', 'BLACKLISTED'],
  })
  async sendSms(
    @WorkspaceId() ws: WorkspaceId,
    @Body() dto: SendSmsDto,
  ): Promise<Envelope<ProviderMessageResponse>> {
    return new Envelope(await this.outbound.sendSms(ws, dto), 'SMS message sent successfully');
  }

  @Post('sms/simulate-inbound')
  @ApiOperation({
    summary: 'Sandbox: a customer texts a sandbox number; the inbound path runs synchronously',
  })
  @ApiEnvelope(SimulatedInboundResponse, {
    status: 201,
    idempotent: false,
    errors: ['VALIDATION_ERROR', 'INVALID_FORMAT', 'CONFLICT'],
  })
  simulateSms(
    @WorkspaceId() ws: WorkspaceId,
    @Body() dto: SimulateSmsDto,
  ): Promise<SimulatedInboundResponse> {
    return this.simulation.run(ws, 'sms', { to: dto.to, from: dto.from, text: dto.body });
  }
}
