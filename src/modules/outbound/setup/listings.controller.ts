import { Body, Controller, Delete, Get, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { Page } from '@/common/http/pagination';
import { UuidParamPipe } from '@/common/http/validation';
import {
  AddedListingContactsResponse,
  AddListingContactsDto,
  CreatedListingResponse,
  CreateListingDto,
  ListingListQuery,
  ListingResponse,
} from './dto/listing.dto';
import { RemovedMemberResponse } from './dto/pool.dto';
import { ListingsService } from './listings.service';

@ApiTags('Listings')
@Controller('api/v1/listings')
export class ListingsController {
  constructor(private readonly service: ListingsService) {}

  @Get()
  @ApiOperation({ summary: 'List listings (newest first)' })
  @ApiEnvelope(ListingResponse, { paginated: true, errors: ['INVALID_FORMAT'] })
  list(@WorkspaceId() ws: WorkspaceId, @Query() q: ListingListQuery): Promise<Page<ListingResponse>> {
    return this.service.list(ws, q);
  }

  @Post()
  @ApiOperation({
    summary: 'Create a listing',
    description:
      'Contacts (matched by phone then email; found ones updated, others created), a FIFO pool, the rule when given ' +
      'by fields, and the campaign, in one transaction; `auto_start` starts it.',
  })
  @ApiEnvelope(CreatedListingResponse, {
    status: 201,
    errors: ['BAD_REQUEST', 'VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID'],
  })
  create(@WorkspaceId() ws: WorkspaceId, @Body() dto: CreateListingDto): Promise<CreatedListingResponse> {
    return this.service.create(ws, dto);
  }

  @Get(':uuid')
  @ApiOperation({ summary: "Read a listing (its uuid is its campaign's)" })
  @ApiEnvelope(ListingResponse, { errors: ['INVALID_UUID'] })
  get(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string): Promise<ListingResponse> {
    return this.service.get(ws, uuid);
  }

  @Post(':uuid/contacts')
  @ApiOperation({
    summary: "Add contacts to the listing's pool",
    description:
      '`contacts` (as at creation: matched by phone then email, found ones updated with the fields sent, others ' +
      'created), `contact_uuids`, or both; a running or paused listing gets one task per new member, in the same ' +
      'transaction.',
  })
  @ApiEnvelope(AddedListingContactsResponse, {
    status: 200,
    errors: ['BAD_REQUEST', 'VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID', 'CONFLICT'],
  })
  addContacts(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: AddListingContactsDto,
  ): Promise<AddedListingContactsResponse> {
    return this.service.addContacts(ws, uuid, dto);
  }

  @Delete(':uuid/contacts/:contactUuid')
  @ApiOperation({ summary: "Remove a contact from the listing's pool (its not-started task is cancelled)" })
  @ApiEnvelope(RemovedMemberResponse, { errors: ['INVALID_UUID', 'CONFLICT'] })
  removeContact(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Param('contactUuid', UuidParamPipe) contactUuid: string,
  ): Promise<RemovedMemberResponse> {
    return this.service.removeContact(ws, uuid, contactUuid);
  }
}
