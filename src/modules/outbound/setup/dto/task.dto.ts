import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsDefined,
  IsEmail,
  IsIn,
  IsInt,
  IsISO8601,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { PageQuery } from '@/common/http/pagination';
import { MetadataField, VariablesField } from '@/common/validation/context-fields';
import { IsE164, IsIanaTimezone, IsUuidValue, OptionalNotNull } from '@/common/validation/validators';
import { VoicemailOverrideDto } from '@/modules/calls/dto/requests';
import { RETRY_STRATEGIES, RetryStrategy, TASK_STATUSES } from '../../outbound.entities';

export const TASK_TYPES = ['make_call', 'send_message'] as const;

export class TaskContactDto {
  @ApiProperty({ example: '+14155550123' })
  @IsDefined()
  @IsE164()
  phone_number!: string;

  @ApiPropertyOptional({ example: 'Ada' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ example: 'ada@example.com' })
  @IsOptional()
  @IsEmail()
  @MaxLength(320)
  email?: string;
}

class TaskEditable {
  @ApiPropertyOptional({ type: String, nullable: true, example: '2026-12-31T18:00:00.000Z' })
  @IsOptional()
  @IsISO8601({ strict: true })
  expires_at?: string | null;

  @ApiPropertyOptional({ minimum: 1, maximum: 10, default: 5 })
  @OptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(10)
  priority?: number;

  @VariablesField()
  variables?: Record<string, unknown>;

  @MetadataField()
  metadata?: Record<string, unknown>;
}

export class CreateTaskDto extends TaskEditable {
  @ApiProperty({ example: 'Call back about the renewal', maxLength: 255 })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(255)
  title!: string;

  @ApiProperty({ enum: TASK_TYPES })
  @IsDefined()
  @IsString()
  @MaxLength(40)
  type!: string;

  @ApiProperty({ format: 'uuid' })
  @IsDefined()
  @IsUuidValue()
  agent_uuid!: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'this or contact' })
  @OptionalNotNull()
  @IsUuidValue()
  contact_uuid?: string;

  @ApiPropertyOptional({ type: TaskContactDto, description: 'found by phone then email, else created' })
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => TaskContactDto)
  contact?: TaskContactDto;

  @ApiProperty({ example: '2026-12-01T09:30:00.000Z', description: 'in the future' })
  @IsDefined()
  @IsISO8601({ strict: true })
  scheduled_at!: string;

  @ApiPropertyOptional({ example: 'Europe/Paris' })
  @OptionalNotNull()
  @IsIanaTimezone()
  timezone?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 20, default: 3 })
  @OptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(20)
  max_attempts?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 10080, default: 60 })
  @OptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(10080)
  retry_interval_minutes?: number;

  @ApiPropertyOptional({ enum: RETRY_STRATEGIES, default: 'fixed' })
  @OptionalNotNull()
  @IsIn(RETRY_STRATEGIES)
  retry_strategy?: RetryStrategy;

  @ApiPropertyOptional({ format: 'uuid' })
  @OptionalNotNull()
  @IsUuidValue()
  phone_number_uuid?: string;

  @ApiPropertyOptional({
    type: VoicemailOverrideDto,
    nullable: true,
    description:
      "make_call: the call's answering-machine keys, over the agent's settings.voice.voicemail (a voicemail ends " +
      'the task `voicemail`, or tries it again with `retry_on_voicemail`)',
  })
  @IsOptional()
  voicemail?: VoicemailOverrideDto | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'send_message: {message_type: "whatsapp_template", template_uuid | template_setting_uuid, parameters?}',
  })
  @OptionalNotNull()
  @IsObject()
  task_data?: Record<string, unknown>;
}

export class UpdateTaskDto extends TaskEditable {
  @ApiPropertyOptional({ maxLength: 255 })
  @OptionalNotNull()
  @IsNotEmpty()
  @IsString()
  @MaxLength(255)
  title?: string;

  @ApiPropertyOptional({ example: '2026-12-01T09:30:00.000Z' })
  @OptionalNotNull()
  @IsISO8601({ strict: true })
  scheduled_at?: string;
}

export class TaskListQuery extends PageQuery {
  @ApiPropertyOptional({ enum: TASK_TYPES }) @IsOptional() @IsIn(TASK_TYPES) type?: string;
  @ApiPropertyOptional({ enum: TASK_STATUSES }) @IsOptional() @IsIn(TASK_STATUSES) status?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() contact_uuid?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() campaign_uuid?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() pool_uuid?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() agent_uuid?: string;

  @ApiPropertyOptional({ minimum: 0, maximum: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(100)
  priority?: number;

  @ApiPropertyOptional({ example: '2026-12-01T00:00:00.000Z' })
  @IsOptional()
  @IsISO8601({ strict: true })
  scheduled_from?: string;

  @ApiPropertyOptional({ example: '2026-12-31T00:00:00.000Z' })
  @IsOptional()
  @IsISO8601({ strict: true })
  scheduled_to?: string;
}

export class TaskAttemptResponse {
  @ApiProperty({ example: 1 }) number!: number;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) conversation_uuid!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) message_uuid!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'busy' }) outcome!: string | null;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) started_at!: string;
  @ApiProperty({ type: String, nullable: true }) ended_at!: string | null;
}

export class TaskResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ example: 'Call back about the renewal' }) title!: string;
  @ApiProperty({ enum: TASK_TYPES }) type!: string;
  @ApiProperty({ enum: TASK_STATUSES }) status!: string;
  @ApiProperty({ format: 'uuid' }) agent_uuid!: string;
  @ApiProperty({ format: 'uuid' }) contact_uuid!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) campaign_uuid!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) pool_uuid!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) phone_number_uuid!: string | null;
  @ApiProperty({ example: '2026-12-01T09:30:00.000Z' }) scheduled_at!: string;
  @ApiProperty({ type: String, nullable: true }) expires_at!: string | null;
  @ApiProperty({ type: String, nullable: true }) timezone!: string | null;
  @ApiProperty({ example: 5 }) priority!: number;
  @ApiProperty({ example: 3 }) max_attempts!: number;
  @ApiProperty({ example: 60 }) retry_interval_minutes!: number;
  @ApiProperty({ enum: RETRY_STRATEGIES }) retry_strategy!: string;
  @ApiProperty({ type: [String], example: ['busy', 'no-answer'] }) retry_on!: string[];
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true }) task_data!: Record<
    string,
    unknown
  > | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) variables!: Record<
    string,
    string
  >;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata!: Record<string, unknown>;
  @ApiProperty({ example: 1 }) attempts_count!: number;
  @ApiProperty({ type: String, nullable: true, example: 'busy' }) last_outcome!: string | null;
  @ApiProperty({ type: String, nullable: true }) next_attempt_at!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'destination_not_allowed',
    description: 'Why the task failed, was cancelled or expired: a stable code (docs/api.md lists them)',
  })
  failure_reason!: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    example: { phone_number: '+14155550100', country: 'GB', whitelisted_destinations: ['US'] },
    description:
      "What `failure_reason` is about (the number, the country, the agent's status), when it has data",
  })
  failure_data!: Record<string, unknown> | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) conversation_uuid!: string | null;
  @ApiProperty({ type: String, nullable: true }) started_at!: string | null;
  @ApiProperty({ type: String, nullable: true }) completed_at!: string | null;
  @ApiProperty({ type: String, nullable: true }) failed_at!: string | null;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) created_at!: string;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) updated_at!: string;
}

export class TaskDetailResponse extends TaskResponse {
  @ApiProperty({ type: [TaskAttemptResponse] }) attempts!: TaskAttemptResponse[];
}
