import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { Page } from '@/common/http/pagination';
import { UuidParamPipe } from '@/common/http/validation';
import {
  CreatePbxConnectorDto,
  ListPbxConnectorsQuery,
  UpdatePbxConnectorDto,
} from './dto/pbx-connector.dto';
import { PbxConnectorResponse, PbxTestResponse } from './dto/sip.response';
import { PbxConnectorsService } from './pbx-connectors.service';

export const SIP_TAG = 'SIP';

/** PBX extension connectors (§15.7): where an agent's forwards to extensions are dialled. */
@ApiTags(SIP_TAG)
@Controller('api/v1/pbx_extension_connectors')
export class PbxConnectorsController {
  constructor(private readonly connectors: PbxConnectorsService) {}

  @Post()
  @ApiOperation({
    summary: 'Add a PBX extension connector for an agent (passwords are sealed and never answered)',
  })
  @ApiEnvelope(PbxConnectorResponse, { status: 201, errors: ['VALIDATION_ERROR', 'INVALID_FORMAT'] })
  create(@WorkspaceId() ws: WorkspaceId, @Body() dto: CreatePbxConnectorDto): Promise<PbxConnectorResponse> {
    return this.connectors.create(ws, dto);
  }

  @Get()
  @ApiOperation({ summary: 'List PBX extension connectors, newest first' })
  @ApiEnvelope(PbxConnectorResponse, { paginated: true, errors: ['INVALID_FORMAT'] })
  list(
    @WorkspaceId() ws: WorkspaceId,
    @Query() q: ListPbxConnectorsQuery,
  ): Promise<Page<PbxConnectorResponse>> {
    return this.connectors.list(ws, q);
  }

  @Get(':uuid')
  @ApiOperation({ summary: 'Read a PBX extension connector' })
  @ApiEnvelope(PbxConnectorResponse, { errors: ['INVALID_UUID'] })
  read(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
  ): Promise<PbxConnectorResponse> {
    return this.connectors.read(ws, id);
  }

  @Patch(':uuid')
  @ApiOperation({
    summary: 'Change a PBX extension connector',
    description:
      'Only the fields sent change; a password sent replaces the stored one, `auth_password: null` removes it.',
  })
  @ApiEnvelope(PbxConnectorResponse, { errors: ['VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID'] })
  update(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: UpdatePbxConnectorDto,
  ): Promise<PbxConnectorResponse> {
    return this.connectors.update(ws, id, dto);
  }

  @Delete(':uuid')
  @ApiOperation({
    summary: 'Delete a PBX extension connector (its agent can no longer forward to extensions)',
  })
  @ApiEnvelope(null, { nullable: true, errors: ['INVALID_UUID'] })
  async remove(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) id: string): Promise<null> {
    await this.connectors.remove(ws, id);
    return null;
  }

  @Post(':uuid/test')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Check that the registrar can be reached',
    description:
      'Sandbox: always reachable. Twilio: Twilio offers no SIP OPTIONS probe, so the check is that the ' +
      "registrar's name resolves (`method: dns`; an IP address counts as reachable).",
  })
  @ApiEnvelope(PbxTestResponse, { errors: ['INVALID_UUID'] })
  test(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) id: string): Promise<PbxTestResponse> {
    return this.connectors.test(ws, id);
  }
}
