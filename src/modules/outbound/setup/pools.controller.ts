import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { Envelope, ResponseMessage } from '@/common/http/envelope';
import { Page } from '@/common/http/pagination';
import { UuidParamPipe } from '@/common/http/validation';
import {
  AddPoolContactsDto,
  AddPoolContactsResponse,
  CreatePoolDto,
  DuplicatedPoolResponse,
  DuplicatePoolDto,
  PoolListQuery,
  PoolMemberQuery,
  PoolMemberResponse,
  PoolResponse,
  RemovedMemberResponse,
  UpdatePoolDto,
} from './dto/pool.dto';
import { PoolsService } from './pools.service';

const WRITE_ERRORS = ['BAD_REQUEST', 'VALIDATION_ERROR', 'INVALID_FORMAT'] as const;

@ApiTags('Pools')
@Controller('api/v1/pools')
export class PoolsController {
  constructor(private readonly service: PoolsService) {}

  @Get()
  @ApiOperation({ summary: 'List pools (newest first)' })
  @ApiEnvelope(PoolResponse, { paginated: true, errors: ['INVALID_FORMAT'] })
  list(@WorkspaceId() ws: WorkspaceId, @Query() q: PoolListQuery): Promise<Page<PoolResponse>> {
    return this.service.list(ws, q);
  }

  @Post()
  @ResponseMessage('Pool created successfully')
  @ApiOperation({ summary: 'Create a pool (FIFO, LIFO or Parallel)' })
  @ApiEnvelope(PoolResponse, { status: 201, errors: [...WRITE_ERRORS] })
  create(@WorkspaceId() ws: WorkspaceId, @Body() dto: CreatePoolDto): Promise<PoolResponse> {
    return this.service.create(ws, dto);
  }

  @Get(':uuid')
  @ApiOperation({ summary: 'Read a pool' })
  @ApiEnvelope(PoolResponse, { errors: ['INVALID_UUID'] })
  get(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string): Promise<PoolResponse> {
    return this.service.get(ws, uuid);
  }

  @Put(':uuid')
  @ApiOperation({
    summary: 'Change a pool (the keys sent)',
    description: 'A new type applies to later dispatches.',
  })
  @ApiEnvelope(PoolResponse, { errors: [...WRITE_ERRORS, 'INVALID_UUID'] })
  update(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: UpdatePoolDto,
  ): Promise<PoolResponse> {
    return this.service.update(ws, uuid, dto);
  }

  @Delete(':uuid')
  @ApiOperation({
    summary: 'Delete a pool',
    description:
      'Refused (409) while a running or paused campaign uses it; otherwise its not-started tasks are cancelled.',
  })
  @ApiEnvelope(null, { nullable: true, errors: ['INVALID_UUID', 'CONFLICT'] })
  async remove(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string): Promise<null> {
    await this.service.remove(ws, uuid);
    return null;
  }

  @Post(':uuid/contacts')
  @ApiOperation({
    summary: 'Add contacts to a pool',
    description:
      'Present members are skipped and unknown UUIDs reported. Each running or paused campaign using the pool gets ' +
      'one task per new member, in the same transaction.',
  })
  @ApiEnvelope(AddPoolContactsResponse, { status: 200, errors: [...WRITE_ERRORS, 'INVALID_UUID'] })
  async addContacts(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: AddPoolContactsDto,
  ): Promise<Envelope<AddPoolContactsResponse>> {
    const r = await this.service.addContacts(ws, uuid, dto);
    return new Envelope(
      r,
      `${r.contacts_added} contact(s) added to pool, ${r.tasks_created} task(s) created across ` +
        `${r.running_campaign_uuids.length} running campaign(s).`,
    );
  }

  @Get(':uuid/contacts')
  @ApiOperation({ summary: "A pool's members with their status, in dispatch order" })
  @ApiEnvelope(PoolMemberResponse, { paginated: true, errors: ['INVALID_FORMAT', 'INVALID_UUID'] })
  members(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Query() q: PoolMemberQuery,
  ): Promise<Page<PoolMemberResponse>> {
    return this.service.members(ws, uuid, q);
  }

  @Delete(':uuid/contacts/:contactUuid')
  @ApiOperation({
    summary: 'Remove a member',
    description: "Cancels only that contact's tasks of this pool that have not started.",
  })
  @ApiEnvelope(RemovedMemberResponse, { errors: ['INVALID_UUID'] })
  removeContact(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Param('contactUuid', UuidParamPipe) contactUuid: string,
  ): Promise<RemovedMemberResponse> {
    return this.service.removeContact(ws, uuid, contactUuid);
  }

  @Post(':uuid/duplicate')
  @ApiOperation({ summary: 'Duplicate a pool (members copied as Pending by default)' })
  @ApiEnvelope(DuplicatedPoolResponse, { status: 201, errors: [...WRITE_ERRORS, 'INVALID_UUID'] })
  duplicate(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: DuplicatePoolDto,
  ): Promise<DuplicatedPoolResponse> {
    return this.service.duplicate(ws, uuid, dto);
  }
}
