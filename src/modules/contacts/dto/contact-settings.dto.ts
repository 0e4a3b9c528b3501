import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsISO31661Alpha2,
  IsOptional,
} from 'class-validator';
import { IsIanaTimezone, OptionalNotNull } from '@/common/validation/validators';
import { INBOUND_MATCH_KEYS, InboundMatchKey } from '../contact-settings.entity';

export class UpdateContactSettingsDto {
  @ApiPropertyOptional({
    type: [String],
    enum: INBOUND_MATCH_KEYS,
    example: ['phone_number', 'email'],
    description:
      'how an inbound conversation finds its contact; without phone_number, SMS, WhatsApp and calls carry no contact',
  })
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(INBOUND_MATCH_KEYS.length)
  @ArrayUnique({ message: '$property must not repeat a value' })
  @IsIn(INBOUND_MATCH_KEYS, { each: true, message: '$property must hold only: phone_number, email' })
  match_inbound_by?: InboundMatchKey[];

  @ApiPropertyOptional({
    example: true,
    description: 'false: an inbound from an unknown address creates no contact',
  })
  @OptionalNotNull()
  @IsBoolean()
  auto_create_contacts?: boolean;

  @ApiPropertyOptional({ type: String, example: 'GB', nullable: true, description: 'ISO 3166-1 alpha-2' })
  @IsOptional()
  @IsISO31661Alpha2({ message: '$property must be an ISO 3166-1 alpha-2 country code' })
  default_country_code?: string | null;

  @ApiPropertyOptional({
    type: String,
    example: 'Europe/London',
    nullable: true,
    description: 'IANA time zone',
  })
  @IsOptional()
  @IsIanaTimezone()
  default_timezone?: string | null;
}

export class ContactSettingsResponse {
  @ApiProperty({ type: [String], enum: INBOUND_MATCH_KEYS, example: ['phone_number', 'email'] })
  match_inbound_by!: InboundMatchKey[];
  @ApiProperty({ example: true }) auto_create_contacts!: boolean;
  @ApiProperty({ type: String, example: 'GB', nullable: true }) default_country_code!: string | null;
  @ApiProperty({ type: String, example: 'Europe/London', nullable: true }) default_timezone!: string | null;
  @ApiProperty({
    type: String,
    example: '2026-11-22T04:17:55.123Z',
    nullable: true,
    description: 'null while on defaults',
  })
  updated_at!: string | null;
}
