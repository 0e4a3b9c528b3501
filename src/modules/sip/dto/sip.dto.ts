import { isIP } from 'node:net';
import { ApiProperty, ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  Allow,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  registerDecorator,
  ValidateNested,
  ValidationOptions,
} from 'class-validator';
import { PageQuery } from '@/common/http/pagination';
import { IsE164, IsUuidValue, OptionalNotNull } from '@/common/validation/validators';
import { NORMALIZER_TEXT_MAX } from '../normalizer';
import { CONNECTION_TYPES, SETUP_MODES } from '../sip.entities';

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOSTNAME_RE = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})*$`);

/** A host name or an IP address, nothing else: no scheme, user, port or path. */
export function isSipHost(value: unknown): boolean {
  return typeof value === 'string' && (HOSTNAME_RE.test(value) || isIP(value) !== 0);
}

/** An IP address or a CIDR block (`203.0.113.0/24`). */
export function isIpOrCidr(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const [ip, bits, extra] = value.split('/');
  if (extra !== undefined) return false;
  const family = isIP(ip);
  if (!family) return false;
  if (bits === undefined) return true;
  const n = Number(bits);
  return /^\d{1,3}$/.test(bits) && n <= (family === 4 ? 32 : 128);
}

const custom =
  (name: string, test: (v: unknown) => boolean, message: string) =>
  (options?: ValidationOptions): PropertyDecorator =>
  (object: object, propertyName: string | symbol): void =>
    registerDecorator({
      name,
      target: object.constructor,
      propertyName: propertyName as string,
      options: { message: `$property ${message}`, ...options },
      validator: { validate: (v: unknown) => test(v) },
    });

export const IsSipHost = custom(
  'isSipHost',
  isSipHost,
  'must be a host name or an IP address only (no scheme, port or path)',
);
export const IsIpOrCidr = custom('isIpOrCidr', isIpOrCidr, 'must be an IP address or a CIDR block');

const USER_RE = /^[A-Za-z0-9*#+._-]{1,64}$/;
const IsSipUser = custom(
  'isSipUser',
  (v) => typeof v === 'string' && USER_RE.test(v),
  'must be 1 to 64 of A-Z a-z 0-9 * # + . _ -',
);

/** `normalizer` in OpenAPI: the text form or the source product's object (one schema for bodies and answers). */
export const NORMALIZER_SCHEMA = {
  nullable: true,
  oneOf: [
    { type: 'string', maxLength: NORMALIZER_TEXT_MAX, example: 'e164' },
    {
      type: 'object',
      required: ['default_prefix'],
      properties: {
        default_prefix: { type: 'string', pattern: '^\\+?[0-9]{1,7}$', maxLength: 8, example: '+1' },
        condition_length: {
          type: 'integer',
          format: 'int32',
          minimum: 1,
          maximum: 15,
          nullable: true,
          example: 10,
        },
        condition_prefix: {
          type: 'string',
          pattern: '^\\+?[0-9]{0,15}$',
          maxLength: 16,
          nullable: true,
          example: '',
        },
      },
    },
  ],
  example: { default_prefix: '+1', condition_length: 10, condition_prefix: '' },
};

/** The fields a connector may leave out, on create and change. */
class PbxConnectorFieldsDto {
  @ApiPropertyOptional({
    type: String,
    example: '+14155550100',
    nullable: true,
    description:
      'a workspace number the PBX reaches the agent on; forwards of calls on it use this connector too',
  })
  @IsOptional()
  @IsE164()
  phone_number?: string | null;

  @ApiPropertyOptional({
    type: String,
    example: '203.0.113.10',
    nullable: true,
    maxLength: 64,
    description: 'IP or CIDR',
  })
  @IsOptional()
  @IsIpOrCidr()
  allowed_ip?: string | null;

  @ApiPropertyOptional({ enum: SETUP_MODES, default: 'both' })
  @OptionalNotNull()
  @IsIn(SETUP_MODES, { message: `setup_mode must be one of ${SETUP_MODES.join(', ')}` })
  setup_mode?: (typeof SETUP_MODES)[number];

  @ApiPropertyOptional({ enum: CONNECTION_TYPES, default: 'udp' })
  @OptionalNotNull()
  @IsIn(CONNECTION_TYPES, { message: `connection_type must be one of ${CONNECTION_TYPES.join(', ')}` })
  connection_type?: (typeof CONNECTION_TYPES)[number];

  @ApiPropertyOptional({ minimum: 1, maximum: 65535, default: 5060 })
  @OptionalNotNull()
  @IsInt({ message: 'port must be an integer' })
  @Min(1)
  @Max(65535)
  port?: number;

  @ApiPropertyOptional({ type: String, example: 'agent-1001', nullable: true, maxLength: 64 })
  @IsOptional()
  @IsSipUser()
  auth_username?: string | null;

  @ApiPropertyOptional({
    type: String,
    example: 'digest-secret',
    nullable: true,
    maxLength: 128,
    writeOnly: true,
    description: 'sealed at rest, never answered (see has_auth_password); null removes it',
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  auth_password?: string | null;

  @ApiPropertyOptional({
    ...NORMALIZER_SCHEMA,
    description:
      "how the PBX writes numbers, stored and echoed for the PBX side: the source product's object (a number of " +
      '`condition_length` digits starting with `condition_prefix` gets `default_prefix`; keys left out are ' +
      'answered null) or a text; null removes it. A wrong type is 422 naming the key (`normalizer.condition_length`).',
  })
  @Allow()
  normalizer?: unknown;
}

/** `PATCH`: only the fields sent change. */
export class UpdatePbxConnectorDto extends PbxConnectorFieldsDto {
  @ApiPropertyOptional({
    format: 'uuid',
    description: 'the agent whose extension forwards use this connector',
  })
  @OptionalNotNull()
  @IsUuidValue()
  agent_uuid?: string;

  @ApiPropertyOptional({ example: 'pbx.example.com', maxLength: 253, description: 'host name or IP only' })
  @OptionalNotNull()
  @IsSipHost()
  registrar_server?: string;

  @ApiPropertyOptional({ example: '1001', maxLength: 64 })
  @OptionalNotNull()
  @IsSipUser()
  username_extension?: string;

  @ApiPropertyOptional({
    example: 's3cret-pbx',
    minLength: 1,
    maxLength: 128,
    writeOnly: true,
    description: 'sealed at rest, never answered (see has_password)',
  })
  @OptionalNotNull()
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  pbx_password?: string;
}

export class CreatePbxConnectorDto extends PbxConnectorFieldsDto {
  @ApiProperty({ format: 'uuid' }) @IsDefined() @IsUuidValue() agent_uuid!: string;
  @ApiProperty({ example: 'pbx.example.com', maxLength: 253 })
  @IsDefined()
  @IsSipHost()
  registrar_server!: string;
  @ApiProperty({ example: '1001', maxLength: 64 })
  @IsDefined()
  @IsSipUser()
  username_extension!: string;
  @ApiProperty({ example: 's3cret-pbx', minLength: 1, maxLength: 128, writeOnly: true })
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  pbx_password!: string;
}

export class ListPbxConnectorsQuery extends PageQuery {
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() agent_uuid?: string;
}

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
