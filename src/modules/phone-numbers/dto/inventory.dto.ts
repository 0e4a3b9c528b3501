import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsDefined,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { IsE164 } from '@/common/validation/validators';
import { INVENTORY_TYPES, InventoryType } from '@/providers/numbers/number-inventory.port';

const COUNTRY = /^[A-Z]{2}$/;
const COUNTRY_MESSAGE = 'country_code must be two capital letters (ISO 3166-1 alpha-2)';
const TYPE_MESSAGE = `type must be one of ${INVENTORY_TYPES.join(', ')}`;
export const MAX_SEARCH_LIMIT = 50;

export class RequirementsQuery {
  @ApiProperty({ example: 'US', description: 'ISO 3166-1 alpha-2', minLength: 2, maxLength: 2 })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @Matches(COUNTRY, { message: COUNTRY_MESSAGE })
  country_code!: string;

  @ApiPropertyOptional({ enum: INVENTORY_TYPES, default: 'local' })
  @IsOptional()
  @IsIn(INVENTORY_TYPES, { message: TYPE_MESSAGE })
  type?: InventoryType;
}

export class SearchNumbersQuery extends RequirementsQuery {
  @ApiPropertyOptional({ example: '555', description: 'digits the number contains', maxLength: 15 })
  @IsOptional()
  @IsString()
  @Matches(/^[0-9]{1,15}$/, { message: 'contains must be 1 to 15 digits' })
  contains?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_SEARCH_LIMIT, default: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer' })
  @Min(1)
  @Max(MAX_SEARCH_LIMIT)
  limit?: number;
}

export class PurchaseAddressDto {
  @ApiProperty({ example: 'Acme Ltd' })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(200)
  customer_name!: string;

  @ApiProperty({ example: '1 Main Street' })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(200)
  street!: string;

  @ApiProperty({ example: 'London' })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(100)
  city!: string;

  @ApiPropertyOptional({
    example: 'Greater London',
    description: 'state, province or region; default the city',
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  region?: string;

  @ApiProperty({ example: 'EC1A 1BB' })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(20)
  postal_code!: string;

  @ApiProperty({ example: 'GB', minLength: 2, maxLength: 2 })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @Matches(COUNTRY, { message: 'address.country_code must be two capital letters (ISO 3166-1 alpha-2)' })
  country_code!: string;
}

export class PurchaseNumberDto {
  @ApiProperty({ example: '+12015550123', description: 'E.164, as a search answered it' })
  @IsDefined()
  @IsNotEmpty()
  @IsE164()
  number!: string;

  @ApiProperty({ example: 'US', minLength: 2, maxLength: 2 })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @Matches(COUNTRY, { message: COUNTRY_MESSAGE })
  country_code!: string;

  @ApiProperty({ enum: INVENTORY_TYPES, example: 'local' })
  @IsDefined()
  @IsIn(INVENTORY_TYPES, { message: TYPE_MESSAGE })
  type!: InventoryType;

  @ApiPropertyOptional({
    type: PurchaseAddressDto,
    description: 'required when the requirements name an address (`any`, `local` or `foreign`)',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PurchaseAddressDto)
  address?: PurchaseAddressDto;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', maxLength: 100 },
    example: { bundle_sid: 'BU0123456789abcdef0123456789abcdef' },
    description:
      'the documents the requirements name, by key (`bundle_sid`); Twilio also takes `address_sid` instead of `address`',
  })
  @IsOptional()
  @IsObject()
  requirements?: Record<string, string>;
}
