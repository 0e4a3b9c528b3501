import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayUnique,
  IsArray,
  IsDefined,
  IsEmail,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
} from 'class-validator';
import { EXPORT_POLICIES, ExportPolicy } from '../workspace.entity';
import { USER_ROLES, UserRole } from '../user.entity';
import { TOKEN_SCOPES, TokenScope } from '../api-token.entity';

export class CreateWorkspaceDto {
  @ApiProperty({
    example: 'acme',
    description: 'tenant label: 3 to 63 lowercase letters, digits, single hyphens',
  })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @Length(3, 63)
  @Matches(/^[a-z0-9](-?[a-z0-9])*$/, {
    message: 'slug must be lowercase letters, digits and single hyphens',
  })
  slug!: string;

  @ApiPropertyOptional({ example: 'Acme Inc.' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  name?: string;
}

export class CreateUserDto {
  @ApiProperty({ example: 'dev@acme.test' })
  @IsDefined()
  @IsNotEmpty()
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(320)
  email!: string;

  @ApiPropertyOptional({ example: 'Dana Developer' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  name?: string;

  @ApiProperty({ enum: USER_ROLES, example: 'developer' })
  @IsDefined()
  @IsIn(USER_ROLES, { message: `role must be one of ${USER_ROLES.join(', ')}` })
  role!: UserRole;
}

export class CreateTokenDto {
  @ApiProperty({ example: 'production backend' })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(200)
  name!: string;

  @ApiProperty({
    example: '0190f3a2-7c1e-7a3b-8c4d-1234567890ab',
    description: 'an admin or developer of the workspace',
    format: 'uuid',
    maxLength: 36,
  })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  user_uuid!: string;

  @ApiPropertyOptional({
    enum: TOKEN_SCOPES,
    isArray: true,
    example: ['read', 'write'],
    default: ['read', 'write'],
  })
  @IsOptional()
  @IsArray()
  @ArrayUnique()
  @IsIn(TOKEN_SCOPES, { each: true, message: 'scopes must contain only read and write' })
  scopes?: TokenScope[];
}

export class SetPoliciesDto {
  @ApiProperty({ enum: EXPORT_POLICIES, example: 'masked' })
  @IsDefined()
  @IsIn(EXPORT_POLICIES, {
    message: `ANALYTICS_MESSAGES_EXPORT must be one of ${EXPORT_POLICIES.join(', ')}`,
  })
  ANALYTICS_MESSAGES_EXPORT!: ExportPolicy;
}
