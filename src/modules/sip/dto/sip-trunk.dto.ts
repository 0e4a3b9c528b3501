import { ApiProperty, ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsDefined,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { IsE164, IsUuidValue } from '@/common/validation/validators';
import { IsSipHost, IsSipUser } from './sip-addresses';

export class CreateSipTrunkDto {
  @ApiProperty({ example: 'Head office trunk', minLength: 1, maxLength: 100 })
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name!: string;

  @ApiProperty({
    example: '+14155550150',
    description: 'the number the trunk carries (registered as external)',
  })
  @IsDefined()
  @IsE164()
  phone_number!: string;

  @ApiProperty({ example: 'sip.carrier.example', maxLength: 253, description: 'host name or IP only' })
  @IsDefined()
  @IsSipHost()
  gateway!: string;

  @ApiPropertyOptional({ type: String, example: 'sip2.carrier.example', nullable: true, maxLength: 253 })
  @IsOptional()
  @IsSipHost()
  secondary_gateway?: string | null;

  @ApiPropertyOptional({ type: String, example: 'trunk-user', nullable: true, maxLength: 64 })
  @IsOptional()
  @IsSipUser()
  username?: string | null;

  @ApiPropertyOptional({ example: 'trunk-secret', maxLength: 128, writeOnly: true })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  password?: string;

  @ApiPropertyOptional({
    enum: ['twilio', 'sandbox'],
    description: 'who places its calls; default twilio when Twilio is configured, else sandbox',
  })
  @IsOptional()
  @IsIn(['twilio', 'sandbox'], { message: 'provider must be one of twilio, sandbox' })
  provider?: 'twilio' | 'sandbox';
}

export class BindSipTrunkDto {
  @ApiProperty({ format: 'uuid' }) @IsDefined() @IsUuidValue() connection_uuid!: string;
  @ApiPropertyOptional({
    default: false,
    description: 'take the number from the agent serving its calls now (else 409)',
  })
  @IsOptional()
  @IsBoolean()
  force?: boolean;
}

export const TRUNK_DIRECTIONS = ['inbound', 'outbound', 'both'] as const;
export type TrunkDirection = (typeof TRUNK_DIRECTIONS)[number];
export const TRUNK_CHANNELS = ['call', 'phone'] as const;

/**
 * The source product's `sip` block of a trunk number: the trunk that carries it (`connection_uuid`), or the settings
 * of a trunk of its own (`gateway` and the rest, as `POST /channels/sip-trunk/connections` takes them).
 */
export class TrunkNumberSipDto extends PartialType(
  OmitType(CreateSipTrunkDto, ['phone_number', 'provider']),
) {
  @ApiPropertyOptional({ format: 'uuid', description: 'alias of `connection_uuid`' })
  @IsOptional()
  @IsUuidValue()
  connection_uuid?: string;
}

/** The source product's names, taken beside today's by both trunk number routes. */
class TrunkNumberSourceFieldsDto {
  @ApiPropertyOptional({
    enum: TRUNK_CHANNELS,
    description: 'source product: a trunk number serves calls only',
  })
  @IsOptional()
  @IsIn(TRUNK_CHANNELS, {
    message: `channel must be one of ${TRUNK_CHANNELS.join(', ')} (a trunk number serves calls)`,
  })
  channel?: (typeof TRUNK_CHANNELS)[number];

  @ApiPropertyOptional({
    enum: TRUNK_DIRECTIONS,
    description:
      'source product: which calls the number takes, set as its channel_settings (inbound: voice.enabled false, ' +
      'inbound.enabled true; outbound: the reverse; both: both true)',
  })
  @IsOptional()
  @IsIn(TRUNK_DIRECTIONS, { message: `direction must be one of ${TRUNK_DIRECTIONS.join(', ')}` })
  direction?: TrunkDirection;

  @ApiPropertyOptional({ format: 'uuid', description: 'also serve its calls with this agent' })
  @IsOptional()
  @IsUuidValue()
  agent_uuid?: string;

  @ApiPropertyOptional({
    default: false,
    description: 'with agent_uuid: take the number from another agent (else 409)',
  })
  @IsOptional()
  @IsBoolean()
  force?: boolean;

  @ApiPropertyOptional({
    type: TrunkNumberSipDto,
    description:
      'source product: `connection_uuid` (alias of the top-level one; both given and different is 422), or the ' +
      'settings of a trunk made for this number (`gateway` required; named after the number unless `name`)',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => TrunkNumberSipDto)
  sip?: TrunkNumberSipDto;
}

export class CreateTrunkNumberDto extends TrunkNumberSourceFieldsDto {
  @ApiPropertyOptional({ example: '+14155550160', description: 'required (or its alias phone_number)' })
  @IsOptional()
  @IsE164()
  number?: string;
  @ApiPropertyOptional({
    example: '+14155550160',
    description: 'alias of `number` (source product); both given and different is 422',
  })
  @IsOptional()
  @IsE164()
  phone_number?: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'the trunk that carries it' })
  @IsOptional()
  @IsUuidValue()
  connection_uuid?: string;
  @ApiPropertyOptional({ example: 'US', minLength: 2, maxLength: 2 })
  @IsOptional()
  @IsString()
  @MinLength(2)
  @MaxLength(2)
  country_code?: string;
  @ApiPropertyOptional({
    enum: ['twilio', 'sandbox'],
    description: 'default: the trunk’s, else as for trunks',
  })
  @IsOptional()
  @IsIn(['twilio', 'sandbox'], { message: 'provider must be one of twilio, sandbox' })
  provider?: 'twilio' | 'sandbox';
}

export class AssignTrunkNumberDto extends TrunkNumberSourceFieldsDto {
  @ApiPropertyOptional({
    format: 'uuid',
    description: 'an external number of the workspace: required (or phone_number)',
  })
  @IsOptional()
  @IsUuidValue()
  phone_number_uuid?: string;
  @ApiPropertyOptional({
    example: '+14155550160',
    description:
      'alias of `phone_number_uuid` naming the number by its E.164 value (source product); both given and naming ' +
      'different numbers is 422',
  })
  @IsOptional()
  @IsE164()
  phone_number?: string;
  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: 'null detaches it' })
  @IsOptional()
  @IsUuidValue()
  connection_uuid?: string | null;
}
