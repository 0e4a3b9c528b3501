import { Body, Controller, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { ResponseMessage } from '@/common/http/envelope';
import { Page, PageQuery } from '@/common/http/pagination';
import { UuidParamPipe } from '@/common/http/validation';
import {
  AssignTrunkNumberDto,
  BindSipTrunkDto,
  CreateSipTrunkDto,
  CreateTrunkNumberDto,
} from './dto/sip-trunk.dto';
import { SipTrunkBindingResponse, SipTrunkResponse, TrunkNumberResponse } from './dto/sip.response';
import { SIP_TAG } from './pbx-connectors.controller';
import { SipTrunksService } from './sip-trunks.service';

/**
 * SIP trunks (§15.7) and the external numbers they carry. `/phone-numbers/trunks` is registered before the phone
 * numbers module's `/phone-numbers/{uuid}` (the SIP module comes first in the application's module list).
 */
@ApiTags(SIP_TAG)
@Controller('api/v1')
export class SipTrunksController {
  constructor(private readonly trunks: SipTrunksService) {}

  @Post('channels/sip-trunk/connections')
  @ApiOperation({
    summary: 'Add a SIP trunk connection; its number is registered as external (the password is sealed)',
  })
  @ApiEnvelope(SipTrunkResponse, { status: 201, errors: ['VALIDATION_ERROR', 'INVALID_FORMAT', 'CONFLICT'] })
  create(@WorkspaceId() ws: WorkspaceId, @Body() dto: CreateSipTrunkDto): Promise<SipTrunkResponse> {
    return this.trunks.createConnection(ws, dto);
  }

  @Get('channels/sip-trunk/connections')
  @ApiOperation({ summary: 'List SIP trunk connections, newest first' })
  @ApiEnvelope(SipTrunkResponse, { paginated: true, errors: ['INVALID_FORMAT'] })
  list(@WorkspaceId() ws: WorkspaceId, @Query() q: PageQuery): Promise<Page<SipTrunkResponse>> {
    return this.trunks.listConnections(ws, q);
  }

  @Post('agents/:uuid/channels/call/sip-trunk')
  @ResponseMessage('Bound')
  @ApiOperation({
    summary: "Serve the calls of a trunk's number with this agent",
    description:
      'A number served by another agent is 409 CONFLICT unless `force: true`, which moves it here. Answers the ' +
      'binding: the agent, the trunk and its number.',
  })
  @ApiEnvelope(SipTrunkBindingResponse, {
    status: 201,
    errors: ['VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID', 'CONFLICT'],
  })
  bind(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: BindSipTrunkDto,
  ): Promise<SipTrunkBindingResponse> {
    return this.trunks.bindAgent(ws, id, dto);
  }

  @Get('phone-numbers/trunks')
  @ApiOperation({
    summary: 'List external numbers (source: external) with their trunk and agent, newest first',
  })
  @ApiEnvelope(TrunkNumberResponse, { paginated: true, errors: ['INVALID_FORMAT'] })
  listNumbers(@WorkspaceId() ws: WorkspaceId, @Query() q: PageQuery): Promise<Page<TrunkNumberResponse>> {
    return this.trunks.listNumbers(ws, q);
  }

  @Post('phone-numbers/trunks')
  @ApiOperation({
    summary: 'Register an external number, carried by a trunk when connection_uuid is given',
    description:
      "Also takes the source product's body: `phone_number` (alias of `number`), `channel` (`call`), " +
      '`agent_uuid` (serve its calls), `direction` (`inbound`, `outbound`, `both`: its channel_settings) and ' +
      '`sip` (`connection_uuid`, alias of the top-level one, or `gateway`, `username`, `password`, ' +
      '`secondary_gateway`, `name`: a trunk of its own). An alias given with a different value than its ' +
      'counterpart is 422 VALIDATION_ERROR on the alias.',
  })
  @ApiEnvelope(TrunkNumberResponse, {
    status: 201,
    errors: ['VALIDATION_ERROR', 'INVALID_FORMAT', 'CONFLICT'],
  })
  createNumber(
    @WorkspaceId() ws: WorkspaceId,
    @Body() dto: CreateTrunkNumberDto,
  ): Promise<TrunkNumberResponse> {
    return this.trunks.createNumber(ws, dto);
  }

  @Put('phone-numbers/trunks/assign')
  @ApiOperation({
    summary: 'Assign an external number to a trunk and/or an agent',
    description:
      '`connection_uuid` sets the trunk (null detaches); `agent_uuid` serves its calls with that agent ' +
      '(another agent’s number: 409 unless `force`). A number that is not external is 409. Also takes the ' +
      "source product's body: `phone_number` (the number in E.164, alias of `phone_number_uuid`), `channel`, " +
      '`direction` and `sip`, as `POST /phone-numbers/trunks` does; aliases that disagree are 422.',
  })
  @ApiEnvelope(TrunkNumberResponse, { errors: ['VALIDATION_ERROR', 'INVALID_FORMAT', 'CONFLICT'] })
  assign(@WorkspaceId() ws: WorkspaceId, @Body() dto: AssignTrunkNumberDto): Promise<TrunkNumberResponse> {
    return this.trunks.assign(ws, dto);
  }
}
