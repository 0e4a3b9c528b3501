import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  Allow,
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { PageQuery } from '@/common/http/pagination';
import { IsE164, IsUuidValue, OptionalNotNull } from '@/common/validation/validators';
import { NORMALIZER_TEXT_MAX } from '../normalizer';
import { CONNECTION_TYPES, SETUP_MODES } from '../sip.entities';
import { IsIpOrCidr, IsSipHost, IsSipUser } from './sip-addresses';

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
