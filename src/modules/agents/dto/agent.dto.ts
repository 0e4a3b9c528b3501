import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsDefined,
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { PageQuery } from '@/common/http/pagination';
import { IsHttpsUrl, IsIanaTimezone } from '@/common/validation/validators';
import { IsSupportedLanguage } from '@/common/validation/languages';
import { AGENT_STATUSES, AgentStatus } from '../agent.entity';

const SHORT = 255;
const LONG = 20000;

export class AgentSettingsDto {
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: { voice_id: 'alloy' } })
  @IsOptional()
  @IsObject()
  voice?: Record<string, unknown>;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: { max_reply_chars: 600 } })
  @IsOptional()
  @IsObject()
  text?: Record<string, unknown>;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: {} })
  @IsOptional()
  @IsObject()
  memorize?: Record<string, unknown>;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: {} })
  @IsOptional()
  @IsObject()
  evaluation?: Record<string, unknown>;
}

export class CreateAgentDto {
  @ApiProperty({ example: 'Sales assistant', maxLength: 200 })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(200)
  name!: string;

  @ApiPropertyOptional({ example: 'Answers inbound sales calls', maxLength: LONG, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(LONG)
  description?: string | null;

  @ApiPropertyOptional({ example: 'Acme Inc.', maxLength: SHORT, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(SHORT)
  company_name?: string | null;

  @ApiPropertyOptional({ example: 'Sales representative', maxLength: SHORT, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(SHORT)
  role?: string | null;

  @ApiPropertyOptional({ example: 'Book a demo with every qualified lead', maxLength: LONG, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(LONG)
  objective?: string | null;

  @ApiPropertyOptional({ example: 'friendly', maxLength: SHORT, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(SHORT)
  tone?: string | null;

  @ApiPropertyOptional({ example: 'Never promise discounts.', maxLength: LONG, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(LONG)
  behavior_guidelines?: string | null;

  @ApiPropertyOptional({ example: 'Cloud telephony for small businesses', maxLength: LONG, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(LONG)
  company_service?: string | null;

  @ApiPropertyOptional({ example: 'Pricing and plans', maxLength: SHORT, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(SHORT)
  topic?: string | null;

  @ApiPropertyOptional({ example: 'short', maxLength: SHORT, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(SHORT)
  length_detail?: string | null;

  @ApiPropertyOptional({ example: 'Premium plan', maxLength: LONG, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(LONG)
  interest_of_product?: string | null;

  @ApiPropertyOptional({
    example: 'Thank them and offer a follow-up by email',
    maxLength: LONG,
    nullable: true,
  })
  @IsOptional()
  @IsString()
  @MaxLength(LONG)
  negative_response?: string | null;

  @ApiPropertyOptional({
    example: 'You are Ava, a helpful assistant of Acme.',
    maxLength: LONG,
    nullable: true,
  })
  @IsOptional()
  @IsString()
  @MaxLength(LONG)
  custom_prompt?: string | null;

  @ApiPropertyOptional({
    example: 'en',
    maxLength: 35,
    nullable: true,
    description: 'a code of GET /api/v1/languages (a region may follow: pt-BR)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(35)
  @IsSupportedLanguage()
  language?: string | null;

  @ApiPropertyOptional({ example: 'normal', maxLength: 50, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(50)
  speed?: string | null;

  @ApiPropertyOptional({ example: 'Europe/Paris', description: 'IANA time zone', nullable: true })
  @IsOptional()
  @IsIanaTimezone()
  timezone?: string | null;

  @ApiPropertyOptional({
    example: 'https://llm.example.com/v1',
    description: 'an OpenAI-compatible base URL used instead of LLM_BASE_URL for this agent',
    nullable: true,
  })
  @IsOptional()
  @IsHttpsUrl()
  custom_llm_url?: string | null;

  @ApiPropertyOptional({ example: 'Mention the annual discount', maxLength: LONG, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(LONG)
  recommendations?: string | null;

  @ApiPropertyOptional({ enum: AGENT_STATUSES, default: 'pending' })
  @IsOptional()
  @IsIn(AGENT_STATUSES, { message: `status must be one of ${AGENT_STATUSES.join(', ')}` })
  status?: AgentStatus;

  @ApiPropertyOptional({ example: false, default: false })
  @IsOptional()
  @IsBoolean()
  appointment_scheduling_enabled?: boolean;

  @ApiPropertyOptional({ example: false, default: false })
  @IsOptional()
  @IsBoolean()
  appointment_scheduling_randomly?: boolean;

  @ApiPropertyOptional({ type: AgentSettingsDto, description: 'on update each block is merged key by key' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => AgentSettingsDto)
  settings?: AgentSettingsDto;
}

export class UpdateAgentDto extends PartialType(CreateAgentDto) {}

export class ListAgentsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: AGENT_STATUSES })
  @IsOptional()
  @IsIn(AGENT_STATUSES, { message: `status must be one of ${AGENT_STATUSES.join(', ')}` })
  status?: AgentStatus;

  @ApiPropertyOptional({ example: 'acme', description: 'case-insensitive, in name, company_name and role' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  search?: string;
}
