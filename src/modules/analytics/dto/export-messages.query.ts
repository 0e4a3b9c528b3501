import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { IsUuidValue } from '@/common/validation/validators';
import { CHANNELS, Channel } from '@/modules/conversations/channels';
import { IsIsoInstant } from './is-iso-instant';

export const EXPORT_LIMIT_MAX = 1000;
export const EXPORT_LIMIT_DEFAULT = 500;
/** A cursor is a fixed-size signed payload in base64url (about 60 characters). */
const CURSOR_MAX = 128;
const CURSOR_MESSAGE = 'cursor is not a next_cursor issued for this workspace and these filters';

export class ExportMessagesQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: EXPORT_LIMIT_MAX, default: EXPORT_LIMIT_DEFAULT, example: 500 })
  @IsOptional()
  // Plain decimal digits only: `0x10`, `1e2` or `+5` stay strings and fail the integer check.
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^[0-9]{1,7}$/.test(value) ? Number(value) : value,
  )
  @IsInt({ message: `limit must be an integer from 1 to ${EXPORT_LIMIT_MAX}` })
  @Min(1, { message: `limit must be an integer from 1 to ${EXPORT_LIMIT_MAX}` })
  @Max(EXPORT_LIMIT_MAX, { message: `limit must be an integer from 1 to ${EXPORT_LIMIT_MAX}` })
  limit: number = EXPORT_LIMIT_DEFAULT;

  @ApiPropertyOptional({
    description:
      'Opaque `pagination.next_cursor` of the previous page; valid only with the same filters and workspace',
    example: 'AQAAAZq2lq3PAAABmrZ8Tg8BmrZ8Tg9zqJ3Xb1kKeU6zrAmR0x2r9Wc6h3cPQ2g',
  })
  @IsOptional()
  @IsString({ message: 'cursor must be a string' })
  @MaxLength(CURSOR_MAX, { message: CURSOR_MESSAGE })
  @Matches(/^[A-Za-z0-9_-]*$/, { message: CURSOR_MESSAGE })
  cursor?: string;

  @ApiPropertyOptional({ enum: CHANNELS, example: 'whatsapp' })
  @IsOptional()
  @IsIn(CHANNELS, { message: `channel must be one of ${CHANNELS.join(', ')}` })
  channel?: Channel;

  @ApiPropertyOptional({ format: 'uuid', example: '019a9a53-0c4e-7a51-9a3e-2f4c8b7d6e10' })
  @IsOptional()
  @IsUuidValue()
  agent_uuid?: string;

  @ApiPropertyOptional({
    description: 'Inclusive lower bound of created_at (ISO 8601; a bare date is midnight UTC)',
    example: '2026-11-01T00:00:00Z',
  })
  @IsOptional()
  @IsIsoInstant()
  from?: string;

  @ApiPropertyOptional({
    description: 'Exclusive upper bound of created_at (ISO 8601; a bare date is midnight UTC)',
    example: '2026-11-08T00:00:00Z',
  })
  @IsOptional()
  @IsIsoInstant()
  to?: string;

  @ApiPropertyOptional({
    enum: ['true', 'false'],
    default: 'false',
    description: 'include the system messages of tool calls (`message_type: "tool"`), left out by default',
  })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'include_system must be true or false' })
  include_system?: 'true' | 'false';
}
