import { isIP } from 'node:net';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  registerDecorator,
  ValidationOptions,
} from 'class-validator';
import { PageQuery } from '@/common/http/pagination';
import { IsE164, IsUuidValue, OptionalNotNull } from '@/common/validation/validators';
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
    type: String,
    example: 'e164',
    nullable: true,
    maxLength: 200,
    description: 'how the PBX writes numbers (stored and echoed for the PBX side)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  normalizer?: string | null;
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

export class CreateTrunkNumberDto {
  @ApiProperty({ example: '+14155550160' }) @IsDefined() @IsE164() number!: string;
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

export class AssignTrunkNumberDto {
  @ApiProperty({ format: 'uuid', description: 'an external number of the workspace' })
  @IsDefined()
  @IsUuidValue()
  phone_number_uuid!: string;
  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: 'null detaches it' })
  @IsOptional()
  @IsUuidValue()
  connection_uuid?: string | null;
  @ApiPropertyOptional({ format: 'uuid', description: 'also serve its calls with this agent' })
  @IsOptional()
  @IsUuidValue()
  agent_uuid?: string;
  @ApiPropertyOptional({ default: false }) @IsOptional() @IsBoolean() force?: boolean;
}
