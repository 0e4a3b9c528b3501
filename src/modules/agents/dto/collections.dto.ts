import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
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
import { WEBHOOK_EVENTS, WebhookEvent } from '../collections/agent-webhook.entity';
import { NotEmptyWhenArray } from './non-empty-array';

const TEXT = 20000;
const oneOf = (field: string, values: readonly string[]) => ({
  message: `${field} must be one of ${values.join(', ')}`,
});

// Guidelines and notes.
export class NoteDto {
  @ApiProperty({ example: 'Always greet the customer by name.', maxLength: TEXT })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(TEXT)
  content!: string;

  @ApiPropertyOptional({ example: 1, description: 'default: after the last one' })
  @IsOptional()
  @IsInt({ message: 'order must be an integer' })
  @Min(0)
  @Max(1_000_000)
  order?: number;
}
export class UpdateNoteDto extends PartialType(NoteDto) {}
export class ReplaceGuidelinesDto {
  @ApiProperty({ type: [NoteDto] })
  @IsDefined()
  @ListOf(NoteDto, 500)
  guidelines!: NoteDto[];
}
export class ReplaceNotesDto {
  @ApiProperty({ type: [NoteDto] })
  @IsDefined()
  @ListOf(NoteDto, 500)
  notes!: NoteDto[];
}

export class TrainingDto {
  @ApiProperty({ example: 'How much is the premium plan?', maxLength: TEXT })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(TEXT)
  content!: string;

  @ApiPropertyOptional({ example: 'pricing', maxLength: 200, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  intent?: string | null;

  @ApiPropertyOptional({ example: 'The premium plan is 49 EUR a month.', maxLength: TEXT, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT)
  response?: string | null;
}
export class UpdateTrainingDto extends PartialType(TrainingDto) {}
export class ReplaceTrainingDto {
  @ApiProperty({ type: [TrainingDto] })
  @IsDefined()
  @ListOf(TrainingDto, 1000)
  training!: TrainingDto[];
}

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

export class WebhookDto {
  @ApiProperty({ example: 'https://hooks.example.com/agent-events', description: 'https only' })
  @IsDefined()
  @IsNotEmpty()
  @IsHttpsUrl()
  url!: string;

  @ApiProperty({ enum: WEBHOOK_EVENTS, isArray: true, example: ['conversation_status'] })
  @IsDefined()
  @IsArray()
  @NotEmptyWhenArray()
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENTS, { each: true, ...oneOf('each event', WEBHOOK_EVENTS) })
  events!: WebhookEvent[];

  @ApiPropertyOptional({ example: true, default: true })
  @IsOptional()
  @IsBoolean()
  is_active?: boolean;

  @ApiPropertyOptional({
    example: 'whsec_3f9a1c...',
    description: 'signs deliveries; stored encrypted, never returned (null removes it)',
    nullable: true,
  })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  secret_key?: string | null;
}
export class UpdateWebhookDto extends PartialType(WebhookDto) {}
export class ReplaceWebhooksDto {
  @ApiProperty({ type: [WebhookDto], maxItems: 5 })
  @IsDefined()
  @ListOf(WebhookDto)
  webhooks!: WebhookDto[];
}

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
