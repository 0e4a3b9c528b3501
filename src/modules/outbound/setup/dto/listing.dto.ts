import { ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsDefined,
  IsEmail,
  IsIn,
  IsISO8601,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { PageQuery } from '@/common/http/pagination';
import { IsUuidList } from '@/common/validation/uuid-list';
import { IsE164, IsIanaTimezone, IsUuidValue, ListOf, OptionalNotNull } from '@/common/validation/validators';
import { AddPoolContactsDto, AddPoolContactsResponse } from './pool.dto';
import { RuleFieldsDto } from './rule.dto';

export class ListingContactDto {
  @ApiProperty({ example: '+14155550123' }) @IsDefined() @IsE164() phone_number!: string;
  @ApiPropertyOptional({ example: 'Ada' }) @IsOptional() @IsString() @MaxLength(200) name?: string;
  @ApiPropertyOptional({ example: 'Lovelace' }) @IsOptional() @IsString() @MaxLength(200) surname?: string;
  @ApiPropertyOptional({ example: 'ada@example.com' })
  @IsOptional()
  @IsEmail()
  @MaxLength(320)
  email?: string;
  @ApiPropertyOptional({ example: 'Europe/London' }) @IsOptional() @IsIanaTimezone() timezone?: string;

  @ApiPropertyOptional({ example: 'GB', pattern: '^[A-Z]{2}$', maxLength: 2 })
  @IsOptional()
  @Matches(/^[A-Z]{2}$/, { message: 'country_code must be an ISO 3166-1 alpha-2 code' })
  country_code?: string;

  @ApiPropertyOptional({ example: 'en' }) @IsOptional() @IsString() @MaxLength(35) primary_language?: string;
}

export class ListingRuleDto extends RuleFieldsDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'an existing rule; else the fields make a new one' })
  @OptionalNotNull()
  @IsUuidValue()
  uuid?: string;

  @ApiPropertyOptional({
    example: 'Listing rule',
    minLength: 3,
    maxLength: 255,
    description: 'default `<name> rule`',
  })
  @OptionalNotNull()
  @IsString()
  @Length(3, 255)
  name?: string;
}

export class CreateListingDto {
  @ApiProperty({ example: 'April leads', minLength: 3, maxLength: 255, description: "also the pool's name" })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @Length(3, 255)
  name!: string;

  @ApiProperty({ type: [ListingContactDto], minItems: 1, maxItems: 1000 })
  @IsDefined()
  @ListOf(ListingContactDto, 1000)
  @ArrayNotEmpty()
  contacts!: ListingContactDto[];

  @ApiProperty({ enum: ['call', 'whatsapp'] })
  @IsDefined()
  @IsIn(['call', 'whatsapp'])
  campaign_type!: 'call' | 'whatsapp';

  @ApiProperty({ format: 'uuid' }) @IsDefined() @IsUuidValue() agent_uuid!: string;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string | null;

  @ApiPropertyOptional({ example: '2026-12-01T08:00:00.000Z' })
  @IsOptional()
  @IsISO8601({ strict: true })
  start_date?: string;

  @ApiPropertyOptional({ example: '2026-12-31T18:00:00.000Z' })
  @IsOptional()
  @IsISO8601({ strict: true })
  end_date?: string;

  @ApiPropertyOptional({ type: ListingRuleDto })
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => ListingRuleDto)
  rule?: ListingRuleDto;

  @ApiPropertyOptional({ format: 'uuid' }) @OptionalNotNull() @IsUuidValue() template_setting_uuid?: string;

  @ApiPropertyOptional({ default: false }) @OptionalNotNull() @IsBoolean() auto_start?: boolean;
}

export class ListingResponse {
  @ApiProperty({ format: 'uuid', description: "the listing's campaign" }) uuid!: string;
  @ApiProperty({ example: 'April leads' }) name!: string;
  @ApiProperty({ type: String, nullable: true }) description!: string | null;
  @ApiProperty({ enum: ['call', 'whatsapp'] }) campaign_type!: string;
  @ApiProperty({ format: 'uuid' }) agent_uuid!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) pool_uuid!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) rule_uuid!: string | null;
  @ApiProperty({ example: 'draft' }) status!: string;
  @ApiProperty({ type: String, nullable: true }) start_date!: string | null;
  @ApiProperty({ type: String, nullable: true }) end_date!: string | null;
  @ApiProperty({ example: 120 }) contacts_count!: number;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) created_at!: string;
}

export class CreatedListingResponse extends ListingResponse {
  @ApiProperty({ example: 3 }) contacts_created!: number;
  @ApiProperty({ example: 1 }) contacts_updated!: number;
}

/** `contacts` (the source product's body, as at creation), `contact_uuids` (the pool's), or both. */
export class AddListingContactsDto extends PickType(AddPoolContactsDto, ['priority'] as const) {
  @ApiPropertyOptional({
    type: [ListingContactDto],
    minItems: 1,
    maxItems: 1000,
    description: 'matched by phone then email (found ones updated with the fields sent), others created',
  })
  @OptionalNotNull()
  @ListOf(ListingContactDto, 1000)
  @ArrayNotEmpty()
  contacts?: ListingContactDto[];

  @ApiPropertyOptional({ type: [String], format: 'uuid', minItems: 1, maxItems: 1000 })
  @OptionalNotNull()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(1000)
  @IsUuidList()
  contact_uuids?: string[];
}

export class AddedListingContactsResponse extends AddPoolContactsResponse {
  @ApiProperty({ example: 1, description: 'contacts created from `contacts`' }) contacts_created!: number;
  @ApiProperty({ example: 1, description: 'contacts of `contacts` found and updated' })
  contacts_updated!: number;
}

export class ListingListQuery extends PageQuery {
  @ApiPropertyOptional({ maxLength: 200 }) @IsOptional() @IsString() @MaxLength(200) search?: string;
}
