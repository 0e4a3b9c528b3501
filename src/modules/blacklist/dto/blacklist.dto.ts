import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsDefined,
  IsEmail,
  IsIn,
  IsISO8601,
  IsOptional,
  IsString,
  MaxLength,
  MinLength,
} from 'class-validator';
import { PageQuery } from '@/common/http/pagination';
import { IsE164 } from '@/common/validation/validators';
import { BLACKLIST_TYPES } from '../blacklist-entry.entity';

const EXPIRES = '2027-01-31T00:00:00.000Z';

class BlacklistTermDto {
  @ApiProperty({ example: 'Asked not to be contacted', minLength: 3, maxLength: 500 })
  @IsDefined()
  @IsString()
  @MinLength(3)
  @MaxLength(500)
  reason!: string;
  @ApiPropertyOptional({ default: true }) @IsOptional() @IsBoolean() is_permanent?: boolean;
  @ApiPropertyOptional({
    example: EXPIRES,
    description: 'required when is_permanent is false; in the future',
  })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'expires_at must be an ISO 8601 date-time' })
  expires_at?: string;
}

/** `POST /contacts/{uuid}/blacklist`. */
export class BlacklistContactDto extends BlacklistTermDto {
  @ApiPropertyOptional({ enum: BLACKLIST_TYPES, default: 'Phone' })
  @IsOptional()
  @IsIn(BLACKLIST_TYPES, { message: `type must be one of ${BLACKLIST_TYPES.join(', ')}` })
  type?: (typeof BLACKLIST_TYPES)[number];
}

/** `POST /blacklist`: an address with no contact (at least one of the two). */
export class BlacklistAddressDto extends BlacklistTermDto {
  @ApiPropertyOptional({ example: '+14155552671' }) @IsOptional() @IsE164() phone_number?: string;
  @ApiPropertyOptional({ example: 'ada@example.com', maxLength: 320 })
  @IsOptional()
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(320)
  email?: string;
}

export class ListBlacklistQuery extends PageQuery {
  @ApiPropertyOptional({ enum: BLACKLIST_TYPES })
  @IsOptional()
  @IsIn(BLACKLIST_TYPES, { message: `type must be one of ${BLACKLIST_TYPES.join(', ')}` })
  type?: string;
  @ApiPropertyOptional({ enum: ['manual', 'opt_out'] })
  @IsOptional()
  @IsIn(['manual', 'opt_out'], { message: 'source must be one of manual, opt_out' })
  source?: string;
  @ApiPropertyOptional({ description: 'substring of the number, email or reason', maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  search?: string;
}
