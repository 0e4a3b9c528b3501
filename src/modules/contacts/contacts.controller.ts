import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOperation, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { Envelope } from '@/common/http/envelope';
import { Page } from '@/common/http/pagination';
import { UuidParamPipe } from '@/common/http/validation';
import { ContactsService } from './contacts.service';
import {
  ContactResponse,
  CreateContactDto,
  CreateContactsBatchDto,
  ListContactsQuery,
  UpdateContactDto,
} from './dto/contact.dto';

@ApiTags('Contacts')
@ApiExtraModels(CreateContactDto, CreateContactsBatchDto)
@Controller('api/v1/contacts')
export class ContactsController {
  constructor(private readonly contacts: ContactsService) {}

  @Get()
  @ApiOperation({ summary: 'List contacts (newest first), with search, status, tag and stage filters' })
  @ApiEnvelope(ContactResponse, { paginated: true, errors: ['INVALID_FORMAT', 'INVALID_UUID'] })
  list(@WorkspaceId() ws: WorkspaceId, @Query() q: ListContactsQuery): Promise<Page<ContactResponse>> {
    return this.contacts.list(ws, q);
  }

  @Post()
  @ApiOperation({
    summary: 'Create one contact, or up to 1000 with {contacts: [...]} (all or nothing)',
    description:
      'One contact answers `data: Contact`; a batch answers `data: [Contact]` in the order sent. A failure in a ' +
      'batch names the item (`contacts.2.phone_number`) and nothing is written.',
  })
  @ApiBody({
    schema: {
      oneOf: [{ $ref: getSchemaPath(CreateContactDto) }, { $ref: getSchemaPath(CreateContactsBatchDto) }],
    },
    examples: {
      one: { value: { name: 'Ada', surname: 'Lovelace', phone_number: '+447911123456', tag_uuids: [] } },
      batch: { value: { contacts: [{ name: 'Ada', phone_number: '+447911123456' }, { name: 'Grace' }] } },
    },
  })
  // Declared after the envelope, whose 201 it replaces: one contact, or the batch's list.
  @ApiResponse({
    status: 201,
    description: 'One contact answers data: Contact; a batch answers data: [Contact]',
    schema: {
      type: 'object',
      required: ['success', 'message', 'data'],
      properties: {
        success: { type: 'boolean', example: true },
        message: { type: 'string', example: 'Created' },
        data: {
          oneOf: [
            { $ref: getSchemaPath(ContactResponse) },
            { type: 'array', items: { $ref: getSchemaPath(ContactResponse) } },
          ],
        },
      },
    },
  })
  @ApiEnvelope(ContactResponse, {
    status: 201,
    errors: ['BAD_REQUEST', 'VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID', 'CONFLICT'],
  })
  async create(
    @WorkspaceId() ws: WorkspaceId,
    @Body() body: unknown,
  ): Promise<ContactResponse | Envelope<ContactResponse[]>> {
    if (body && typeof body === 'object' && 'contacts' in body) {
      const created = await this.contacts.createMany(ws, body);
      return new Envelope(
        created.map((c) => this.contacts.toResponse(c)),
        `${created.length} contacts created`,
      );
    }
    return this.contacts.toResponse(await this.contacts.create(ws, body as Record<string, unknown>));
  }

  @Get(':uuid')
  @ApiOperation({ summary: 'Read a contact' })
  @ApiEnvelope(ContactResponse, { errors: ['INVALID_UUID'] })
  async get(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
  ): Promise<ContactResponse> {
    return this.contacts.toResponse(await this.contacts.get(ws, uuid));
  }

  @Put(':uuid')
  @ApiOperation({
    summary: 'Change a contact (only the keys sent)',
    description:
      '`custom_fields` merge key by key (null removes one); `tag_uuids` replaces the tags; a new ' +
      '`pipeline_stage_uuid` records `pipeline_stage_changed_at`.',
  })
  @ApiBody({ type: UpdateContactDto })
  @ApiEnvelope(ContactResponse, {
    errors: ['BAD_REQUEST', 'VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID', 'CONFLICT'],
  })
  async update(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() body: unknown,
  ): Promise<ContactResponse> {
    return this.contacts.toResponse(await this.contacts.update(ws, uuid, body as Record<string, unknown>));
  }

  @Delete(':uuid')
  @ApiOperation({ summary: 'Delete a contact (its appointments and requests keep no contact)' })
  @ApiEnvelope(null, { nullable: true, errors: ['INVALID_UUID'] })
  async remove(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string): Promise<null> {
    await this.contacts.remove(ws, uuid);
    return null;
  }
}
