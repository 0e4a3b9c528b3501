import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsEmail,
  IsIn,
  IsISO31661Alpha2,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { PageQuery } from '@/common/http/pagination';
import { IsUuidList } from '@/common/validation/uuid-list';
import { IsE164, IsIanaTimezone, IsUuidValue, ListOf } from '@/common/validation/validators';
import { CONTACT_STATUSES, ContactStatus } from '../contact.entity';

export const MAX_BATCH_CONTACTS = 1000;
const MAX_TAGS = 100;

/** Fields shared by create and update; every one may be sent as null to clear it (except status). */
class ContactFields {
  @ApiPropertyOptional({ example: 'Lovelace', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  surname?: string | null;

  @ApiPropertyOptional({ example: 'ada@example.com', nullable: true })
  @IsOptional()
  @IsEmail({}, { message: '$property must be an email address' })
  @MaxLength(320)
  email?: string | null;

  @ApiPropertyOptional({
    example: '+447911123456',
    description: 'E.164; unique in the workspace',
    nullable: true,
  })
  @IsOptional()
  @IsE164()
  phone_number?: string | null;

  @ApiPropertyOptional({ example: 'mobile', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(30)
  number_type?: string | null;

  @ApiPropertyOptional({ example: 'GB', description: 'ISO 3166-1 alpha-2', nullable: true })
  @IsOptional()
  @IsISO31661Alpha2({ message: '$property must be an ISO 3166-1 alpha-2 country code' })
  country_code?: string | null;

  @ApiPropertyOptional({ example: 'Europe/London', description: 'IANA time zone', nullable: true })
  @IsOptional()
  @IsIanaTimezone()
  timezone?: string | null;

  @ApiPropertyOptional({ example: 'en', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(35)
  primary_language?: string | null;

  @ApiPropertyOptional({ example: 'whatsapp', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(30)
  preferred_contact_channel?: string | null;

  @ApiPropertyOptional({ example: 'weekdays 09:00-12:00', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  preferred_contact_time?: string | null;

  @ApiPropertyOptional({ enum: CONTACT_STATUSES, example: 'Active', default: 'Active' })
  @IsOptional()
  @IsIn(CONTACT_STATUSES, { message: '$property must be one of: Active, Inactive' })
  status?: ContactStatus;

  @ApiPropertyOptional({
    example: { plan: 'pro', age: 36 },
    description: 'keys of custom field definitions; on update a null value removes the key',
  })
  @IsOptional()
  @IsObject({ message: '$property must be an object' })
  custom_fields?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: [String],
    example: ['01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e6f'],
    description: 'the contact’s tags (replaces the set on update)',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_TAGS)
  @IsUuidList()
  tag_uuids?: string[];

  @ApiPropertyOptional({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e70', nullable: true })
  @IsOptional()
  @IsUuidValue()
  pipeline_stage_uuid?: string | null;
}

export class CreateContactDto extends ContactFields {
  @ApiProperty({ example: 'Ada' })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(200)
  name!: string;
}

export class UpdateContactDto extends ContactFields {
  @ApiPropertyOptional({ example: 'Ada' })
  @ValidateIf((_, v) => v !== undefined)
  @IsNotEmpty()
  @IsString()
  @MaxLength(200)
  name?: string;
}

/** `POST /contacts` with `{contacts: [...]}`: up to 1000, all or nothing. */
export class CreateContactsBatchDto {
  @ApiProperty({ type: [CreateContactDto], maxItems: MAX_BATCH_CONTACTS })
  @IsDefined()
  @ListOf(CreateContactDto, MAX_BATCH_CONTACTS)
  contacts!: CreateContactDto[];
}

export class ListContactsQuery extends PageQuery {
  @ApiPropertyOptional({
    description: 'case-insensitive, in name, surname, email and phone number',
    example: 'ada',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  search?: string;

  @ApiPropertyOptional({ enum: CONTACT_STATUSES })
  @IsOptional()
  @IsIn(CONTACT_STATUSES, { message: '$property must be one of: Active, Inactive' })
  status?: ContactStatus;

  @ApiPropertyOptional({ description: 'contacts carrying this tag' })
  @IsOptional()
  @IsUuidValue()
  tag_uuid?: string;

  @ApiPropertyOptional({ description: 'contacts in this pipeline stage' })
  @IsOptional()
  @IsUuidValue()
  stage_uuid?: string;
}

export class ContactTagRef {
  @ApiProperty({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e6f' }) uuid!: string;
  @ApiProperty({ example: 'VIP' }) name!: string;
  @ApiProperty({ type: String, example: '#FF8800', nullable: true }) color!: string | null;
}

export class ContactResponse {
  @ApiProperty({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e71' }) uuid!: string;
  @ApiProperty({ type: String, example: 'Ada', nullable: true }) name!: string | null;
  @ApiProperty({ type: String, example: 'Lovelace', nullable: true }) surname!: string | null;
  @ApiProperty({ type: String, example: 'ada@example.com', nullable: true }) email!: string | null;
  @ApiProperty({ type: String, example: '+447911123456', nullable: true }) phone_number!: string | null;
  @ApiProperty({ type: String, example: 'mobile', nullable: true }) number_type!: string | null;
  @ApiProperty({ type: String, example: 'GB', nullable: true }) country_code!: string | null;
  @ApiProperty({ type: String, example: 'Europe/London', nullable: true }) timezone!: string | null;
  @ApiProperty({ type: String, example: 'en', nullable: true }) primary_language!: string | null;
  @ApiProperty({ type: String, example: 'whatsapp', nullable: true }) preferred_contact_channel!:
    string | null;
  @ApiProperty({ type: String, example: 'weekdays 09:00-12:00', nullable: true }) preferred_contact_time!:
    string | null;
  @ApiProperty({ enum: CONTACT_STATUSES, example: 'Active' }) status!: ContactStatus;
  @ApiProperty({ example: { plan: 'pro' } }) custom_fields!: Record<string, unknown>;
  @ApiProperty({ type: [ContactTagRef] }) tags!: ContactTagRef[];
  @ApiProperty({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e70', nullable: true })
  pipeline_stage_uuid!: string | null;
  @ApiProperty({
    example: '2026-11-22T04:17:55.123Z',
    nullable: true,
    description: 'when the stage last changed',
  })
  pipeline_stage_changed_at!: string | null;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) created_at!: string;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) updated_at!: string;
}
