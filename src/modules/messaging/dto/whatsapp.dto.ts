import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { PageQuery } from '@/common/http/pagination';
import { IsE164, IsHttpsUrl, IsUuidValue } from '@/common/validation/validators';
import { TEMPLATE_CATEGORIES, TEMPLATE_STATUSES } from '../messaging.entities';

const HEADER_TYPES = ['image', 'video', 'document'] as const;
const COMPONENTS_EXAMPLE = [{ type: 'BODY', text: 'Hi {{1}}, your order {{2}} ships today.' }];

export class TemplateHeaderDto {
  @ApiProperty({ enum: HEADER_TYPES })
  @IsDefined()
  @IsIn(HEADER_TYPES, { message: 'header.type must be one of image, video, document' })
  type!: (typeof HEADER_TYPES)[number];
  @ApiProperty({ example: 'https://example.com/receipt.pdf' })
  @IsDefined()
  @IsHttpsUrl()
  @MaxLength(2048)
  url!: string;
}

export class CreateTemplateDto {
  @ApiProperty({ example: 'order_update', pattern: '^[a-z0-9_]{1,512}$', maxLength: 512 })
  @IsDefined()
  @IsString()
  @Matches(/^[a-z0-9_]{1,512}$/, { message: 'name must be lowercase letters, digits and _ (at most 512)' })
  name!: string;
  @ApiProperty({ example: 'en_US', maxLength: 20 })
  @IsDefined()
  @IsString()
  @MaxLength(20)
  @Matches(/^[a-z]{2,3}(_[A-Z]{2})?$/, { message: 'language must be a Meta language tag such as en_US' })
  language!: string;
  @ApiProperty({ enum: TEMPLATE_CATEGORIES })
  @IsDefined()
  @IsIn(TEMPLATE_CATEGORIES, { message: `category must be one of ${TEMPLATE_CATEGORIES.join(', ')}` })
  category!: string;
  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    example: COMPONENTS_EXAMPLE,
  })
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(10)
  @IsObject({ each: true, message: 'each component must be an object' })
  components!: Record<string, unknown>[];
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() phone_number_uuid?: string;
  @ApiPropertyOptional({ example: '102290129340398' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  waba_id?: string;
}

export class ListTemplatesQuery extends PageQuery {
  @ApiPropertyOptional({ enum: TEMPLATE_STATUSES })
  @IsOptional()
  @IsIn(TEMPLATE_STATUSES, { message: `status must be one of ${TEMPLATE_STATUSES.join(', ')}` })
  status?: string;
  @ApiPropertyOptional({ example: 'en_US' }) @IsOptional() @IsString() @MaxLength(20) language?: string;
  @ApiPropertyOptional({ enum: TEMPLATE_CATEGORIES })
  @IsOptional()
  @IsIn(TEMPLATE_CATEGORIES, { message: `category must be one of ${TEMPLATE_CATEGORIES.join(', ')}` })
  category?: string;
  @ApiPropertyOptional({ description: 'substring of the name' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  search?: string;
}

export class TemplateParamsDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', maxLength: 1024 },
    example: { '1': '{{contact.name}}' },
  })
  @IsDefined()
  @IsObject()
  body!: Record<string, string>;
  @ApiPropertyOptional({ type: TemplateHeaderDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => TemplateHeaderDto)
  header?: TemplateHeaderDto;
}

export class TemplateSettingDto {
  @ApiProperty({ format: 'uuid' }) @IsDefined() @IsNotEmpty() @IsUuidValue() template_uuid!: string;
  @ApiProperty({ type: TemplateParamsDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => TemplateParamsDto)
  params!: TemplateParamsDto;
  @ApiPropertyOptional({ enum: ['active', 'inactive'], default: 'active' })
  @IsOptional()
  @IsIn(['active', 'inactive'], { message: 'status must be one of active, inactive' })
  status?: 'active' | 'inactive';
}

export class SendTemplateDto {
  @ApiProperty({ format: 'uuid', required: true }) @IsOptional() @IsUuidValue() agent_uuid?: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'this or template_setting_uuid' })
  @IsOptional()
  @IsUuidValue()
  template_uuid?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() template_setting_uuid?: string;
  @ApiProperty({ example: '+14155552671', required: true })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  to?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', maxLength: 1024 },
    example: { '1': 'Ada' },
  })
  @IsOptional()
  @IsObject()
  parameters?: Record<string, string>;
  @ApiPropertyOptional({ type: TemplateHeaderDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => TemplateHeaderDto)
  header?: TemplateHeaderDto;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() phone_number_uuid?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() contact_uuid?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', maxLength: 500 },
    description: 'for {{variables.*}}',
  })
  @IsOptional()
  @IsObject()
  variables?: Record<string, string>;
  @ApiPropertyOptional({ format: 'uuid', deprecated: true, description: 'alias of agent_uuid' })
  @IsOptional()
  @IsUuidValue()
  agentId?: string;
  @ApiPropertyOptional({ format: 'uuid', deprecated: true, description: 'alias of template_uuid' })
  @IsOptional()
  @IsUuidValue()
  templateId?: string;
  @ApiPropertyOptional({ deprecated: true, description: 'alias of to' })
  @IsOptional()
  @IsE164()
  phoneNumber?: string;
}
