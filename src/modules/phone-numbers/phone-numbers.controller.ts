import { Body, Controller, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { Page } from '@/common/http/pagination';
import { UuidParamPipe } from '@/common/http/validation';
import {
  CreatePhoneNumberDto,
  ListPhoneNumbersQuery,
  SnapshotQuery,
  UpdatePhoneNumberDto,
} from './dto/phone-numbers.dto';
import { PurchaseNumberDto, RequirementsQuery, SearchNumbersQuery } from './dto/inventory.dto';
import {
  AvailableNumberResponse,
  PhoneNumberChannelSnapshotResponse,
  PhoneNumberResponse,
  SearchRequirementsResponse,
} from './dto/phone-numbers.response';
import { PhoneNumberInventoryService } from './phone-number-inventory.service';
import { PhoneNumbersService } from './phone-numbers.service';
import { ChannelBindingsService } from './channel-bindings.service';

@ApiTags('Phone numbers')
@Controller('api/v1/phone-numbers')
export class PhoneNumbersController {
  constructor(
    private readonly numbers: PhoneNumbersService,
    private readonly channels: ChannelBindingsService,
    private readonly inventory: PhoneNumberInventoryService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List the phone numbers of the workspace, newest first' })
  @ApiEnvelope(PhoneNumberResponse, { paginated: true, errors: ['INVALID_FORMAT'] })
  list(
    @WorkspaceId() ws: WorkspaceId,
    @Query() query: ListPhoneNumbersQuery,
  ): Promise<Page<PhoneNumberResponse>> {
    return this.numbers.list(ws, query);
  }

  @Post()
  @ApiOperation({ summary: 'Register a number the workspace owns (E.164)' })
  @ApiEnvelope(PhoneNumberResponse, {
    status: 201,
    errors: ['VALIDATION_ERROR', 'INVALID_FORMAT', 'CONFLICT'],
  })
  create(@WorkspaceId() ws: WorkspaceId, @Body() dto: CreatePhoneNumberDto): Promise<PhoneNumberResponse> {
    return this.numbers.register(ws, dto);
  }

  // The inventory's fixed paths come before `:uuid`, which would otherwise take them as (invalid) uuids.
  @Get('search')
  @ApiOperation({
    summary: 'Numbers available to buy, up to fifty (Twilio when configured, else the sandbox inventory)',
  })
  @ApiEnvelope(AvailableNumberResponse, {
    isArray: true,
    errors: ['VALIDATION_ERROR', 'INVALID_FORMAT', 'PROVIDER_ERROR'],
  })
  search(@Query() query: SearchNumbersQuery): Promise<AvailableNumberResponse[]> {
    return this.inventory.search(query);
  }

  @Get('search/requirements')
  @ApiOperation({ summary: 'What buying a number of this country and type asks for (address, documents)' })
  @ApiEnvelope(SearchRequirementsResponse, {
    errors: ['VALIDATION_ERROR', 'INVALID_FORMAT', 'PROVIDER_ERROR'],
  })
  requirements(@Query() query: RequirementsQuery): Promise<SearchRequirementsResponse> {
    return this.inventory.requirements(query);
  }

  @Post('purchase')
  @ApiOperation({
    summary: 'Buy a number from the inventory; it answers the number with `source: purchased`',
  })
  @ApiEnvelope(PhoneNumberResponse, {
    status: 201,
    errors: ['VALIDATION_ERROR', 'INVALID_FORMAT', 'PURCHASE_LIMIT_REACHED', 'CONFLICT', 'PROVIDER_ERROR'],
  })
  purchase(@WorkspaceId() ws: WorkspaceId, @Body() dto: PurchaseNumberDto): Promise<PhoneNumberResponse> {
    return this.inventory.purchase(ws, dto);
  }

  @Get('channels')
  @ApiOperation({ summary: 'Channel snapshot of a number, found by its E.164 value' })
  @ApiEnvelope(PhoneNumberChannelSnapshotResponse, { errors: ['VALIDATION_ERROR', 'INVALID_FORMAT'] })
  snapshotByNumber(
    @WorkspaceId() ws: WorkspaceId,
    @Query() query: SnapshotQuery,
  ): Promise<PhoneNumberChannelSnapshotResponse> {
    return this.channels.snapshotByNumber(ws, query.number);
  }

  @Get(':uuid')
  @ApiOperation({ summary: 'Read a phone number' })
  @ApiEnvelope(PhoneNumberResponse, { errors: ['INVALID_UUID'] })
  read(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
  ): Promise<PhoneNumberResponse> {
    return this.numbers.read(ws, id);
  }

  @Patch(':uuid')
  @ApiOperation({ summary: 'Change a phone number: its channel settings and its WhatsApp sender' })
  @ApiEnvelope(PhoneNumberResponse, {
    errors: ['VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID', 'CONFLICT'],
  })
  update(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: UpdatePhoneNumberDto,
  ): Promise<PhoneNumberResponse> {
    return this.numbers.update(ws, id, dto);
  }

  @Delete(':uuid')
  @ApiOperation({ summary: 'Delete a phone number and every binding of it' })
  @ApiEnvelope(null, { nullable: true, errors: ['INVALID_UUID'] })
  async remove(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) id: string): Promise<null> {
    await this.numbers.remove(ws, id);
    return null;
  }

  @Post(':uuid/release')
  @ApiOperation({
    summary:
      'Give a purchased number back to its provider; it is deleted with its bindings (answers it `released`)',
  })
  @ApiEnvelope(PhoneNumberResponse, { errors: ['INVALID_UUID', 'CONFLICT', 'PROVIDER_ERROR'] })
  release(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
  ): Promise<PhoneNumberResponse> {
    return this.inventory.release(ws, id);
  }

  @Get(':uuid/channels')
  @ApiOperation({ summary: 'Channel snapshot of a number: which agent serves call, SMS and WhatsApp' })
  @ApiEnvelope(PhoneNumberChannelSnapshotResponse, { errors: ['INVALID_UUID'] })
  snapshot(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
  ): Promise<PhoneNumberChannelSnapshotResponse> {
    return this.channels.snapshotById(ws, id);
  }
}
