import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { CONTACT_FIELD_TYPES, ContactFieldType } from '../contact-field.entity';

const KEY_RE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const KEY_MESSAGE =
  '$property must be snake_case (lowercase letters, digits and underscores, starting with a letter)';
const TYPE_MESSAGE = `$property must be one of: ${CONTACT_FIELD_TYPES.join(', ')}`;

export class CreateFieldDto {
  @ApiProperty({ example: 'plan', description: 'snake_case, unique in the workspace' })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(64)
  @Matches(KEY_RE, { message: KEY_MESSAGE })
  key!: string;

  @ApiProperty({ example: 'Plan' })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(200)
  label!: string;

  @ApiProperty({ enum: CONTACT_FIELD_TYPES, example: 'select' })
  @IsDefined()
  @IsNotEmpty()
  @IsIn(CONTACT_FIELD_TYPES, { message: TYPE_MESSAGE })
  type!: ContactFieldType;

  @ApiPropertyOptional({ type: [String], example: ['free', 'pro'], description: 'required for select' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(200, { each: true })
  options?: string[];
}

export class UpdateFieldDto {
  @ApiPropertyOptional({ example: 'plan' })
  @ValidateIf((_, v) => v !== undefined)
  @IsNotEmpty()
  @IsString()
  @MaxLength(64)
  @Matches(KEY_RE, { message: KEY_MESSAGE })
  key?: string;

  @ApiPropertyOptional({ example: 'Plan' })
  @ValidateIf((_, v) => v !== undefined)
  @IsNotEmpty()
  @IsString()
  @MaxLength(200)
  label?: string;

  @ApiPropertyOptional({ enum: CONTACT_FIELD_TYPES, example: 'text' })
  @ValidateIf((_, v) => v !== undefined)
  @IsIn(CONTACT_FIELD_TYPES, { message: TYPE_MESSAGE })
  type?: ContactFieldType;

  @ApiPropertyOptional({ type: [String], example: ['free', 'pro', 'enterprise'] })
  @ValidateIf((_, v) => v !== undefined)
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(200, { each: true })
  options?: string[];
}

export class FieldResponse {
  @ApiProperty({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e6f' }) uuid!: string;
  @ApiProperty({ example: 'plan' }) key!: string;
  @ApiProperty({ example: 'Plan' }) label!: string;
  @ApiProperty({ enum: CONTACT_FIELD_TYPES, example: 'select' }) type!: ContactFieldType;
  @ApiProperty({ type: [String], example: ['free', 'pro'] }) options!: string[];
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) created_at!: string;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) updated_at!: string;
}
