import { Body, Controller, Delete, Get, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { ResponseMessage } from '@/common/http/envelope';
import { UuidParamPipe } from '@/common/http/validation';
import {
  BindMessengerDto,
  BindPhoneNumberDto,
  BindWhatsappDto,
} from '@/modules/phone-numbers/dto/phone-numbers.dto';
import { ChannelBindingsService } from '@/modules/phone-numbers/channel-bindings.service';
import { AgentsService } from './agents.service';
import { AgentChannelResponse } from '@/modules/phone-numbers/dto/agent-bindings.response';
import { AgentResponse } from './dto/agent.response';

/** Which numbers and pages an agent serves. One agent per number and channel, one per page (409 otherwise). */
@ApiTags('Agent channels')
@Controller('api/v1/agents/:uuid')
export class AgentChannelsController {
  constructor(
    private readonly agents: AgentsService,
    private readonly bindings: ChannelBindingsService,
  ) {}

  @Get('channels')
  @ApiOperation({ summary: "The agent's channel bindings (numbers per channel and Messenger pages)" })
  @ApiEnvelope(AgentChannelResponse, { isArray: true, errors: ['INVALID_UUID'] })
  async channels(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
  ): Promise<AgentChannelResponse[]> {
    return (await this.agents.view(ws, id)).channels;
  }

  @Post('phone-numbers')
  @ApiOperation({
    summary: 'Bind channels of a number to the agent',
    description:
      'All or none; a channel served by another agent is 409, one the number is not capable of too.',
  })
  @ApiEnvelope(AgentResponse, {
    status: 201,
    errors: ['VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID', 'CONFLICT'],
  })
  async bindNumber(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: BindPhoneNumberDto,
  ): Promise<AgentResponse> {
    await this.agents.get(ws, id);
    await this.bindings.bind(ws, id, dto.phone_number_uuid.toLowerCase(), dto.channels);
    return this.agents.view(ws, id);
  }

  @Delete('phone-numbers/:phoneNumberUuid')
  @ApiOperation({
    summary: 'Unbind every channel of the number from the agent; the number stays on the account',
  })
  @ApiEnvelope(AgentResponse, { errors: ['INVALID_UUID'] })
  async unbindNumber(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
    @Param('phoneNumberUuid', UuidParamPipe) numberId: string,
  ): Promise<AgentResponse> {
    await this.agents.get(ws, id);
    await this.bindings.unbind(ws, id, numberId);
    return this.agents.view(ws, id);
  }

  @Post('channels/whatsapp/bind')
  @ResponseMessage('Bound')
  @ApiOperation({ summary: 'Serve WhatsApp messaging of a number with this agent' })
  @ApiEnvelope(AgentResponse, { errors: ['VALIDATION_ERROR', 'INVALID_UUID', 'INVALID_FORMAT', 'CONFLICT'] })
  async bindWhatsapp(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: BindWhatsappDto,
  ): Promise<AgentResponse> {
    await this.agents.get(ws, id);
    await this.bindings.bind(ws, id, dto.phone_number_uuid.toLowerCase(), ['whatsapp']);
    return this.agents.view(ws, id);
  }

  @Post('channels/whatsapp/unbind')
  @ResponseMessage('Unbound')
  @ApiOperation({ summary: 'Remove the WhatsApp messaging binding; the number stays on the account' })
  @ApiEnvelope(AgentResponse, { errors: ['INVALID_UUID'] })
  async unbindWhatsapp(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
  ): Promise<AgentResponse> {
    await this.agents.get(ws, id);
    await this.bindings.unbindChannel(ws, id, 'whatsapp');
    return this.agents.view(ws, id);
  }

  @Post('channels/messenger/bind')
  @ResponseMessage('Bound')
  @ApiOperation({
    summary: 'Serve a Messenger page with this agent (the page is added to the account if new)',
  })
  @ApiEnvelope(AgentResponse, { errors: ['VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID', 'CONFLICT'] })
  async bindMessenger(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: BindMessengerDto,
  ): Promise<AgentResponse> {
    await this.agents.get(ws, id);
    await this.bindings.bindMessenger(ws, id, dto.page_id, dto.page_name);
    return this.agents.view(ws, id);
  }

  @Post('channels/messenger/unbind')
  @ResponseMessage('Unbound')
  @ApiOperation({
    summary: 'Remove the Messenger binding; the page stays on the account and can be bound again',
  })
  @ApiEnvelope(AgentResponse, { errors: ['INVALID_UUID'] })
  async unbindMessenger(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
  ): Promise<AgentResponse> {
    await this.agents.get(ws, id);
    await this.bindings.unbindMessenger(ws, id);
    return this.agents.view(ws, id);
  }
}
