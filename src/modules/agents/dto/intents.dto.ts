import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { IsHttpsUrl, IsUuidValue, ListOf } from '@/common/validation/validators';
import { TEXT, oneOf } from './collection-fields';

export class ProcedureStepDto {
  @ApiProperty({ example: 1 })
  @IsDefined()
  @IsInt({ message: 'order must be an integer' })
  @Min(0)
  order!: number;

  @ApiPropertyOptional({ example: 'Ask for the order number', maxLength: TEXT, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT)
  description?: string | null;

  @ApiPropertyOptional({
    format: 'uuid',
    description: 'an intent of this agent: the step becomes a tool call',
  })
  @IsOptional()
  @IsUuidValue()
  intent_uuid?: string | null;
}

export class ProcedureDto {
  @ApiProperty({ example: 'Process a refund', maxLength: 200 })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(200)
  name!: string;

  @ApiPropertyOptional({ example: 'When the customer asks for their money back', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT)
  description?: string | null;

  @ApiPropertyOptional({ type: [ProcedureStepDto], description: 'sorted by order' })
  @IsOptional()
  @ListOf(ProcedureStepDto, 100)
  steps?: ProcedureStepDto[];
}
export class UpdateProcedureDto extends PartialType(ProcedureDto) {}
export class ReplaceProceduresDto {
  @ApiProperty({ type: [ProcedureDto] })
  @IsDefined()
  @ListOf(ProcedureDto, 200)
  procedures!: ProcedureDto[];
}

export class IntentWebhookDto {
  @ApiProperty({ example: 'https://hooks.example.com/orders' })
  @IsDefined()
  @IsNotEmpty()
  @IsHttpsUrl()
  url!: string;

  @ApiPropertyOptional({ example: 'tok_123', maxLength: 500, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  auth_token?: string | null;
}

export const PARAMETER_TYPES = ['string', 'number', 'integer', 'boolean', 'date', 'email', 'phone'] as const;

export class IntentParameterDto {
  @ApiProperty({ example: 'order_number' })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(100)
  @Matches(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'key must be letters, digits and underscores' })
  key!: string;

  @ApiPropertyOptional({ example: '', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  default?: string | null;

  @ApiPropertyOptional({ enum: PARAMETER_TYPES, default: 'string' })
  @IsOptional()
  @IsIn(PARAMETER_TYPES, oneOf('type', PARAMETER_TYPES))
  type?: string;

  @ApiPropertyOptional({ example: true, default: false })
  @IsOptional()
  @IsBoolean()
  required?: boolean;
}

export class IntentDto {
  @ApiProperty({ example: 'Check order status', maxLength: 200 })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(200)
  name!: string;

  @ApiPropertyOptional({
    example: 'check_order_status',
    description: 'unique per agent; generated from the name when absent',
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @Matches(/^[a-z0-9_]+$/, { message: 'key must be lowercase letters, digits and underscores' })
  key?: string;

  @ApiPropertyOptional({ example: 'The customer wants to know where the order is', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT)
  description?: string | null;

  @ApiPropertyOptional({ example: 'Offer tracking by SMS', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT)
  recommendation_actions?: string | null;

  @ApiPropertyOptional({ example: 0.7, minimum: 0, maximum: 1, default: 0.5 })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'confidence_threshold must be a number' })
  @Min(0)
  @Max(1)
  confidence_threshold?: number;

  @ApiPropertyOptional({ example: false, default: false })
  @IsOptional()
  @IsBoolean()
  is_system?: boolean;

  @ApiPropertyOptional({ example: false, default: false })
  @IsOptional()
  @IsBoolean()
  intent_llm_handle_by_response?: boolean;

  @ApiPropertyOptional({ type: IntentWebhookDto, nullable: true })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => IntentWebhookDto)
  webhook?: IntentWebhookDto | null;

  @ApiPropertyOptional({ type: [IntentParameterDto] })
  @IsOptional()
  @ListOf(IntentParameterDto, 50)
  parameters?: IntentParameterDto[];
}
export class UpdateIntentDto extends PartialType(IntentDto) {}
export class ReplaceIntentsDto {
  @ApiProperty({ type: [IntentDto] })
  @IsDefined()
  @ListOf(IntentDto, 200)
  intents!: IntentDto[];
}
