import { Body, Controller, Delete, Get, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { Envelope } from '@/common/http/envelope';
import { Page } from '@/common/http/pagination';
import { UuidParamPipe } from '@/common/http/validation';
import { ContactsService } from '@/modules/contacts/contacts.service';
import { BlacklistService } from './blacklist.service';
import { BlacklistAddressDto, BlacklistContactDto, ListBlacklistQuery } from './dto/blacklist.dto';
import { BlacklistedContactResponse, BlacklistEntryResponse } from './dto/blacklist.response';

/** The do-not-contact list: contacts' entries, addresses without a contact, and opt-outs by message. */
@ApiTags('Blacklist')
@Controller('api/v1')
export class BlacklistController {
  constructor(
    private readonly blacklist: BlacklistService,
    private readonly contacts: ContactsService,
  ) {}

  @Get('blacklist')
  @ApiOperation({ summary: 'List do-not-contact entries, newest first (expired ones stay listed)' })
  @ApiEnvelope(BlacklistEntryResponse, { paginated: true, errors: ['INVALID_FORMAT'] })
  list(
    @WorkspaceId() ws: WorkspaceId,
    @Query() q: ListBlacklistQuery,
  ): Promise<Page<BlacklistEntryResponse>> {
    return this.blacklist.list(ws, q);
  }

  @Post('blacklist')
  @ApiOperation({ summary: 'Add a number and/or an email with no contact to the do-not-contact list' })
  @ApiEnvelope(BlacklistEntryResponse, { status: 201, errors: ['VALIDATION_ERROR', 'INVALID_FORMAT'] })
  async add(
    @WorkspaceId() ws: WorkspaceId,
    @Body() dto: BlacklistAddressDto,
  ): Promise<Envelope<BlacklistEntryResponse>> {
    return new Envelope(await this.blacklist.add(ws, dto), 'Added to blacklist');
  }

  @Delete('blacklist/:uuid')
  @ApiOperation({ summary: 'Remove a do-not-contact entry' })
  @ApiEnvelope(null, { nullable: true, errors: ['INVALID_UUID'] })
  async remove(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) id: string): Promise<null> {
    await this.blacklist.remove(ws, id);
    return null;
  }

  @Post('contacts/:uuid/blacklist')
  @ApiOperation({ summary: "Blacklist a contact's number and/or email" })
  @ApiEnvelope(BlacklistedContactResponse, {
    status: 201,
    errors: ['VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID'],
  })
  async blacklistContact(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
    @Body() dto: BlacklistContactDto,
  ): Promise<Envelope<BlacklistedContactResponse>> {
    const contact = await this.contacts.get(ws, id);
    const entry = await this.blacklist.addContact(ws, contact, dto);
    return new Envelope(
      { ...this.contacts.toResponse(contact), blacklist: BlacklistEntryResponse.of(entry) },
      'Contact added to blacklist',
    );
  }

  @Delete('contacts/:uuid/blacklist')
  @ApiOperation({
    summary: "Remove a contact's do-not-contact entry",
    description:
      'Removes the entries added by hand; an opt-out by message (STOP) stays: 409 when only it is left.',
  })
  @ApiEnvelope(null, { nullable: true, errors: ['INVALID_UUID', 'CONFLICT'] })
  async unblacklistContact(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) id: string,
  ): Promise<null> {
    await this.contacts.get(ws, id);
    await this.blacklist.removeContact(ws, id);
    return null;
  }
}
