import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { ContactSettingsService } from './contact-settings.service';
import { ContactSettingsResponse, UpdateContactSettingsDto } from './dto/contact-settings.dto';

@ApiTags('Contacts')
@Controller('api/v1/contacts/settings')
export class ContactSettingsController {
  constructor(private readonly settings: ContactSettingsService) {}

  @Get()
  @ApiOperation({ summary: 'How inbound conversations find or create their contact' })
  @ApiEnvelope(ContactSettingsResponse)
  get(@WorkspaceId() ws: WorkspaceId): Promise<ContactSettingsResponse> {
    return this.settings.get(ws);
  }

  @Put()
  @ApiOperation({
    summary: 'Change the contact settings (only the keys sent)',
    description:
      'Inbound SMS, WhatsApp messages and calls find their contact by phone number when `match_inbound_by` ' +
      'holds `phone_number`; an unknown number makes a contact (with the default country and time zone) unless ' +
      '`auto_create_contacts` is false.',
  })
  @ApiBody({
    type: UpdateContactSettingsDto,
    examples: {
      all: {
        value: {
          match_inbound_by: ['phone_number', 'email'],
          auto_create_contacts: true,
          default_country_code: 'GB',
          default_timezone: 'Europe/London',
        },
      },
      noAutoCreate: { value: { auto_create_contacts: false } },
    },
  })
  @ApiEnvelope(ContactSettingsResponse, { errors: ['BAD_REQUEST', 'VALIDATION_ERROR', 'INVALID_FORMAT'] })
  update(
    @WorkspaceId() ws: WorkspaceId,
    @Body() dto: UpdateContactSettingsDto,
  ): Promise<ContactSettingsResponse> {
    return this.settings.update(ws, dto);
  }
}
