import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsE164, IsUuidValue } from '@/common/validation/validators';

/**
 * `POST /sms/send`. The source product's camelCase body is accepted too (deprecated aliases); with both spellings
 * the snake_case one wins. Required fields are checked after the aliases are folded in.
 */
export class SendSmsDto {
  @ApiProperty({ format: 'uuid', required: true }) @IsOptional() @IsUuidValue() agent_uuid?: string;
  @ApiProperty({ example: '+14155552671', required: true, description: 'E.164' })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  to?: string;
  @ApiProperty({ example: 'Your order ships today.', required: true, minLength: 1, maxLength: 1600 })
  @IsOptional()
  @IsString()
  @MaxLength(1600)
  body?: string;
  @ApiPropertyOptional({ format: 'uuid', description: "the sender; default the agent's first sms number" })
  @IsOptional()
  @IsUuidValue()
  phone_number_uuid?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() contact_uuid?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: { order: 'A-1001' } })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;
  @ApiPropertyOptional({ format: 'uuid', deprecated: true, description: 'alias of agent_uuid' })
  @IsOptional()
  @IsUuidValue()
  agentId?: string;
  @ApiPropertyOptional({ deprecated: true, description: 'alias of to', example: '+14155552671' })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  phoneNumber?: string;
  @ApiPropertyOptional({ deprecated: true, description: 'alias of body', maxLength: 1600 })
  @IsOptional()
  @IsString()
  @MaxLength(1600)
  message?: string;
}

/** `POST /whatsapp/messages`: free text, inside the 24-hour customer-service window only. */
export class SendWhatsappTextDto {
  @ApiProperty({ format: 'uuid' }) @IsDefined() @IsNotEmpty() @IsUuidValue() agent_uuid!: string;
  @ApiProperty({ example: '+14155552671', description: 'E.164' })
  @IsDefined()
  @IsNotEmpty()
  @IsE164()
  to!: string;
  @ApiProperty({ example: 'Your order ships today.', minLength: 1, maxLength: 4096 })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  text!: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() phone_number_uuid?: string;
}

/** The sandbox's inbound simulation: `{to, from, body}` (SMS) or `{to, from, text}` (WhatsApp). */
export class SimulateSmsDto {
  @ApiProperty({ example: '+16282000001', description: 'a sandbox number of the workspace' })
  @IsDefined()
  @IsNotEmpty()
  @IsE164()
  to!: string;
  @ApiProperty({ example: '+14155552671' }) @IsDefined() @IsNotEmpty() @IsE164() from!: string;
  @ApiProperty({ example: 'Where is my order?', maxLength: 1600 })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(1600)
  body!: string;
}

export class SimulateWhatsappDto {
  @ApiProperty({ example: '+16282000001', description: 'a sandbox number of the workspace' })
  @IsDefined()
  @IsNotEmpty()
  @IsE164()
  to!: string;
  @ApiProperty({ example: '+14155552671' }) @IsDefined() @IsNotEmpty() @IsE164() from!: string;
  @ApiProperty({ example: 'Where is my order?', maxLength: 4096 })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  text!: string;
}
