import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, registerDecorator, ValidationOptions } from 'class-validator';
import { IsIanaTimezone, IsUuidValue } from '@/common/validation/validators';
import { CHANNELS, Channel } from '@/modules/conversations/channels';
import { IsIsoInstant } from './is-iso-instant';

/** Room for every channel once, with spaces; a longer list only repeats names. */
const CHANNEL_LIST_MAX = 200;

/** Splits a comma-separated channel list; null when any entry is not a channel. */
export function parseChannelList(value: unknown): Channel[] | null {
  if (typeof value !== 'string' || !value.trim() || value.length > CHANNEL_LIST_MAX) return null;
  const list = value.split(',').map((c) => c.trim());
  if (!list.every((c) => (CHANNELS as readonly string[]).includes(c))) return null;
  return [...new Set(list as Channel[])];
}

function IsChannelList(options?: ValidationOptions) {
  return (object: object, propertyName: string): void =>
    registerDecorator({
      name: 'isChannelList',
      target: object.constructor,
      propertyName,
      options: {
        message: `$property must be a comma-separated list of ${CHANNELS.join(', ')}`,
        ...options,
      },
      validator: { validate: (value: unknown) => parseChannelList(value) !== null },
    });
}

/** Filters shared by the aggregate endpoints. */
export class AnalyticsQuery {
  @ApiPropertyOptional({
    description: 'Inclusive lower bound (ISO 8601; a bare date is midnight in `timezone`)',
    example: '2026-11-01',
  })
  @IsOptional()
  @IsIsoInstant()
  from?: string;

  @ApiPropertyOptional({
    description: 'Exclusive upper bound (ISO 8601; a bare date is midnight in `timezone`)',
    example: '2026-11-08',
  })
  @IsOptional()
  @IsIsoInstant()
  to?: string;

  @ApiPropertyOptional({
    description: `Comma-separated, among ${CHANNELS.join(', ')}`,
    example: 'whatsapp,sms',
    maxLength: CHANNEL_LIST_MAX,
    pattern: '^[a-z_ ,]+$',
  })
  @IsOptional()
  @IsChannelList()
  channel?: string;

  @ApiPropertyOptional({ format: 'uuid', example: '019a9a53-0c4e-7a51-9a3e-2f4c8b7d6e10' })
  @IsOptional()
  @IsUuidValue()
  agent_uuid?: string;

  @ApiPropertyOptional({
    description: 'IANA time zone of the day buckets',
    default: 'UTC',
    example: 'Europe/Paris',
  })
  @IsOptional()
  @IsIanaTimezone()
  timezone?: string;
}
