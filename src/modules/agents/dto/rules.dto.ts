import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { IsUuidValue, ListOf } from '@/common/validation/validators';
import {
  DETECTION_MODES,
  DESTINATION_TYPES,
  DetectionMode,
  GUARD_ACTIONS,
  GuardAction,
  RULE_CHANNELS,
  RuleChannel,
  TRANSFER_TYPES,
} from '../collections/agent-rules.entity';
import { TEXT, oneOf } from './collection-fields';

export class RoutingRuleDto {
  @ApiPropertyOptional({ example: 'Billing', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  department_name?: string | null;

  @ApiPropertyOptional({ example: 'billing', description: 'exact mode: said literally', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  trigger_keyword?: string | null;

  @ApiPropertyOptional({ enum: DETECTION_MODES, default: 'intent' })
  @IsOptional()
  @IsIn(DETECTION_MODES, oneOf('detection_mode', DETECTION_MODES))
  detection_mode?: DetectionMode;

  @ApiPropertyOptional({ type: [String], example: ['I have a question about my invoice', 'talk to billing'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(500, { each: true })
  phrases?: string[];

  @ApiPropertyOptional({ example: 'The customer wants to talk about invoices or payments', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT)
  ai_prompt?: string | null;

  @ApiPropertyOptional({ example: 'Let me transfer you to billing.', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  voice_response?: string | null;

  @ApiPropertyOptional({ example: 'Billing is not available right now.', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  voice_on_error?: string | null;

  @ApiPropertyOptional({ example: 'You are now connected to billing.', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  voice_on_success?: string | null;

  @ApiPropertyOptional({ enum: DESTINATION_TYPES, example: 'extension', nullable: true })
  @IsOptional()
  @IsIn(DESTINATION_TYPES, oneOf('destination_type', DESTINATION_TYPES))
  destination_type?: string | null;

  @ApiPropertyOptional({ example: '201', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  destination?: string | null;

  @ApiPropertyOptional({ format: 'uuid', description: 'an agent of this workspace', nullable: true })
  @IsOptional()
  @IsUuidValue()
  destination_agent_uuid?: string | null;

  @ApiPropertyOptional({ enum: TRANSFER_TYPES, example: 'transfer_call', nullable: true })
  @IsOptional()
  @IsIn(TRANSFER_TYPES, oneOf('transfer_type', TRANSFER_TYPES))
  transfer_type?: string | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: { timeout_seconds: 30 } })
  @IsOptional()
  @IsObject()
  transfer_config?: Record<string, unknown>;

  @ApiPropertyOptional({ example: 1, description: 'lower first; default: after the last rule' })
  @IsOptional()
  @IsInt({ message: 'priority must be an integer' })
  @Min(-1_000_000)
  @Max(1_000_000)
  priority?: number;

  @ApiPropertyOptional({ example: true, default: true })
  @IsOptional()
  @IsBoolean()
  is_active?: boolean;
}
export class UpdateRoutingRuleDto extends PartialType(RoutingRuleDto) {}
export class ReplaceRoutingRulesDto {
  @ApiProperty({ type: [RoutingRuleDto] })
  @IsDefined()
  @ListOf(RoutingRuleDto, 200)
  routing_rules!: RoutingRuleDto[];
}

export class GuardRuleDto {
  @ApiPropertyOptional({ example: 'Angry customer', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  name?: string | null;

  @ApiPropertyOptional({ example: 'The customer is angry or asks for a human', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT)
  when_condition?: string | null;

  @ApiPropertyOptional({ type: [String], example: ['I want to speak to a human', 'this is ridiculous'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(500, { each: true })
  example_phrases?: string[];

  @ApiPropertyOptional({ enum: GUARD_ACTIONS, default: 'forward' })
  @IsOptional()
  @IsIn(GUARD_ACTIONS, oneOf('then_action', GUARD_ACTIONS))
  then_action?: GuardAction;

  @ApiPropertyOptional({
    enum: RULE_CHANNELS,
    isArray: true,
    example: ['phone'],
    description: 'empty: every channel',
  })
  @IsOptional()
  @IsArray()
  @ArrayUnique()
  @IsIn(RULE_CHANNELS, { each: true, ...oneOf('each selected channel', RULE_CHANNELS) })
  selected_channels?: RuleChannel[];

  @ApiPropertyOptional({ example: 'I will connect you with a colleague.', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  say_before_forwarding?: string | null;

  @ApiPropertyOptional({ example: 'Goodbye.', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  say_before_end?: string | null;

  @ApiPropertyOptional({ enum: DESTINATION_TYPES, example: 'extension', nullable: true })
  @IsOptional()
  @IsIn(DESTINATION_TYPES, oneOf('destination_type', DESTINATION_TYPES))
  destination_type?: string | null;

  @ApiPropertyOptional({ example: '100', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  destination?: string | null;

  @ApiPropertyOptional({ format: 'uuid', nullable: true })
  @IsOptional()
  @IsUuidValue()
  destination_agent_uuid?: string | null;

  @ApiPropertyOptional({ example: true, default: true })
  @IsOptional()
  @IsBoolean()
  is_active?: boolean;

  @ApiPropertyOptional({ example: false, default: false })
  @IsOptional()
  @IsBoolean()
  is_default?: boolean;
}
export class UpdateGuardRuleDto extends PartialType(GuardRuleDto) {}
export class ReplaceGuardRulesDto {
  @ApiProperty({ type: [GuardRuleDto] })
  @IsDefined()
  @ListOf(GuardRuleDto, 200)
  guard_rules!: GuardRuleDto[];
}

export class RuleTestDto {
  @ApiProperty({ example: 'I want to talk to billing' })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(4000)
  utterance!: string;

  @ApiProperty({ enum: RULE_CHANNELS, example: 'phone' })
  @IsDefined()
  @IsNotEmpty()
  @IsIn(RULE_CHANNELS, oneOf('channel', RULE_CHANNELS))
  channel!: RuleChannel;
}
