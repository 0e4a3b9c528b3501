import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsDefined,
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
import { IsIanaTimezone, IsUuidValue, OptionalNotNull } from '@/common/validation/validators';
import { IsUuidList } from '@/common/validation/uuid-list';
import { CAMPAIGN_STATUSES, WAITING_REASONS, WaitingReason } from '../../outbound.entities';
import { DEFAULT_WINDOW } from '../../engine/policy';
import { EffectivePolicyResponse, RetryDto, RetryResponse, WindowDto, WindowResponse } from './policy.dto';
import { RuleResponse } from './rule.dto';
import { VoicemailOverrideDto } from '@/modules/calls/dto/requests';

class CampaignEditable {
  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, example: '2026-12-31T18:00:00.000Z' })
  @IsOptional()
  @IsISO8601({ strict: true })
  end_at?: string | null;

  @ApiPropertyOptional({
    type: WindowDto,
    nullable: true,
    description:
      'When tasks are dialled. Keys left out come from the rule, else the default window: ' +
      `${DEFAULT_WINDOW.days.join(', ')} ${DEFAULT_WINDOW.start_time}–${DEFAULT_WINDOW.end_time}, read in the ` +
      "contact's time zone (`use_contact_timezone` true) or else the campaign's `timezone`. The answer's " +
      '`effective_window` shows the result.',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => WindowDto)
  window?: WindowDto | null;

  @ApiPropertyOptional({ type: RetryDto, nullable: true })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => RetryDto)
  retry?: RetryDto | null;

  @ApiPropertyOptional({ minimum: 1, maximum: 50, default: 10, description: 'at most MAX_CONCURRENT_CALLS' })
  @OptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(1000)
  max_concurrency?: number;

  @VariablesField()
  variables?: Record<string, unknown>;

  @MetadataField()
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: VoicemailOverrideDto,
    nullable: true,
    description:
      "The campaign's answering-machine keys, over its agent's settings.voice.voicemail (null: the agent's). A call " +
      'that reaches a machine ends its task `voicemail` (counted in `stats.voicemail`, never as answered), or tries ' +
      "it again under the campaign's retry interval and attempts with `retry_on_voicemail`. Running or paused: " +
      'applies to the tasks not started yet.',
  })
  @IsOptional()
  voicemail?: VoicemailOverrideDto | null;
}

export class CreateCampaignDto extends CampaignEditable {
  @ApiProperty({ example: 'April renewals', maxLength: 255 })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(255)
  name!: string;

  @ApiProperty({ format: 'uuid' })
  @IsDefined()
  @IsUuidValue()
  agent_uuid!: string;

  @ApiPropertyOptional({ enum: ['call', 'whatsapp'], default: 'call' })
  @OptionalNotNull()
  @IsIn(['call', 'whatsapp'])
  channel?: 'call' | 'whatsapp';

  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true })
  @IsOptional()
  @IsUuidValue()
  phone_number_uuid?: string | null;

  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: 'required for whatsapp' })
  @IsOptional()
  @IsUuidValue()
  template_setting_uuid?: string | null;

  @ApiPropertyOptional({ type: [String], format: 'uuid' })
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(100)
  @IsUuidList()
  pool_uuids?: string[];

  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true })
  @IsOptional()
  @IsUuidValue()
  rule_uuid?: string | null;

  @ApiPropertyOptional({ example: 'Europe/Paris', description: "default the agent's, else UTC" })
  @OptionalNotNull()
  @IsIanaTimezone()
  timezone?: string;

  @ApiPropertyOptional({ type: String, nullable: true, example: '2026-12-01T08:00:00.000Z' })
  @IsOptional()
  @IsISO8601({ strict: true })
  start_at?: string | null;
}

export class UpdateCampaignDto extends CampaignEditable {
  @ApiPropertyOptional({ example: 'April renewals', maxLength: 255 })
  @OptionalNotNull()
  @IsNotEmpty()
  @IsString()
  @MaxLength(255)
  name?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'draft only' })
  @OptionalNotNull()
  @IsUuidValue()
  agent_uuid?: string;

  @ApiPropertyOptional({ enum: ['call', 'whatsapp'], description: 'draft only' })
  @OptionalNotNull()
  @IsIn(['call', 'whatsapp'])
  channel?: 'call' | 'whatsapp';

  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: 'draft only' })
  @IsOptional()
  @IsUuidValue()
  phone_number_uuid?: string | null;

  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: 'draft only' })
  @IsOptional()
  @IsUuidValue()
  template_setting_uuid?: string | null;

  @ApiPropertyOptional({ example: 'Europe/Paris', description: 'draft only' })
  @OptionalNotNull()
  @IsIanaTimezone()
  timezone?: string;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'draft only' })
  @IsOptional()
  @IsISO8601({ strict: true })
  start_at?: string | null;
}

export class CampaignListQuery extends PageQuery {
  @ApiPropertyOptional({ enum: CAMPAIGN_STATUSES })
  @IsOptional()
  @IsIn(CAMPAIGN_STATUSES)
  status?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUuidValue()
  agent_uuid?: string;

  @ApiPropertyOptional({ enum: ['call', 'whatsapp'] })
  @IsOptional()
  @IsIn(['call', 'whatsapp'])
  channel?: string;

  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  search?: string;
}

export class AttachPoolsDto {
  @ApiProperty({ type: [String], format: 'uuid', minItems: 1, maxItems: 100 })
  @IsDefined()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(100)
  @IsUuidList()
  pool_uuids!: string[];
}

export class AssignRuleDto {
  @ApiProperty({ format: 'uuid' })
  @IsDefined()
  @IsUuidValue()
  rule_uuid!: string;
}

export class CampaignStatsResponse {
  @ApiProperty() tasks!: number;
  @ApiProperty() scheduled!: number;
  @ApiProperty() pending!: number;
  @ApiProperty() queued!: number;
  @ApiProperty() in_progress!: number;
  @ApiProperty() completed!: number;
  @ApiProperty() failed!: number;
  @ApiProperty() cancelled!: number;
  @ApiProperty() expired!: number;
  @ApiProperty() on_hold!: number;
  @ApiProperty({
    description: 'tasks ended on a voicemail: their last call reached a machine and was not tried again',
  })
  voicemail!: number;
  @ApiProperty({ description: 'tasks whose call was answered by a person (a machine is never counted)' })
  answered!: number;
  @ApiProperty() attempts!: number;
}

export class CampaignResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ example: 'April renewals' }) name!: string;
  @ApiProperty({ type: String, nullable: true }) description!: string | null;
  @ApiProperty({ format: 'uuid' }) agent_uuid!: string;
  @ApiProperty({ enum: ['call', 'whatsapp'] }) channel!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) phone_number_uuid!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) template_setting_uuid!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) rule_uuid!: string | null;
  @ApiProperty({ example: 'Europe/Paris' }) timezone!: string;
  @ApiProperty({ type: String, nullable: true }) start_at!: string | null;
  @ApiProperty({ type: String, nullable: true }) end_at!: string | null;
  @ApiProperty({ type: WindowResponse, nullable: true, description: 'as sent; see effective_window' })
  window!: Partial<WindowResponse> | null;
  @ApiProperty({ type: RetryResponse, nullable: true, description: 'as sent; see effective_policy' })
  retry!: Partial<RetryResponse> | null;
  @ApiProperty({ example: 10 }) max_concurrency!: number;
  @ApiProperty({ type: VoicemailOverrideDto, nullable: true, description: 'as sent; null: the agent’s' })
  voicemail!: Record<string, unknown> | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) variables!: Record<
    string,
    string
  >;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata!: Record<string, unknown>;
  @ApiProperty({ enum: CAMPAIGN_STATUSES }) status!: string;
  @ApiProperty({ type: [String], format: 'uuid' }) pool_uuids!: string[];
  @ApiProperty({ type: String, nullable: true }) started_at!: string | null;
  @ApiProperty({ type: String, nullable: true }) ended_at!: string | null;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) created_at!: string;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) updated_at!: string;
  @ApiProperty({
    type: WindowResponse,
    description:
      "The window the campaign's tasks are dialled in: its own `window` keys, then its rule's, then the default " +
      `(${DEFAULT_WINDOW.days.join(', ')} ${DEFAULT_WINDOW.start_time}–${DEFAULT_WINDOW.end_time}, ` +
      "use_contact_timezone true: read in the contact's zone, else in `timezone`).",
  })
  effective_window!: WindowResponse;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-12-02T09:00:00.000Z',
    description:
      'When the campaign next places a call or message: now while it dials; the due time of its next task while it ' +
      'waits for one; null when no time is known (paused, waiting for a slot, nothing left to dial, not running, ' +
      'or the next due time is at or after `end_at`).',
  })
  next_dial_at!: string | null;
  @ApiProperty({
    type: String,
    enum: WAITING_REASONS,
    nullable: true,
    example: 'outside_window',
    description:
      'Why a running or paused campaign is not dialling now; null while it dials and for a draft, completed or ' +
      'cancelled one. `before_start`: `start_at` not reached; `outside_window`: the next task waits for its window ' +
      "to open; `daily_cap`: the next task's contact has had today's `max_calls_per_day`; `retry_interval`: the " +
      'next task waits out its retry interval; `concurrency`: tasks are due but every slot they may use is taken ' +
      "(the campaign's `max_concurrency`, the pool's, or the workspace's call limit); `pools_inactive`: only " +
      'inactive pools hold tasks; `no_due_tasks`: nothing is due before `next_dial_at`, or nothing is left to dial ' +
      '(calls in progress may still be retried); `paused`: waiting for `resume`.',
  })
  waiting_reason!: WaitingReason | null;
}

export class CampaignDetailResponse extends CampaignResponse {
  @ApiProperty({ type: RuleResponse, nullable: true }) rule!: RuleResponse | null;
  @ApiProperty({ type: EffectivePolicyResponse }) effective_policy!: EffectivePolicyResponse;
  @ApiProperty({ type: CampaignStatsResponse }) stats!: CampaignStatsResponse;
}

export class AttachPoolsResponse {
  @ApiProperty({ format: 'uuid' }) campaign_uuid!: string;
  @ApiProperty({ type: [String], format: 'uuid' }) pools_attached!: string[];
  @ApiProperty({ type: [String], format: 'uuid' }) pool_uuids_not_found!: string[];
  @ApiProperty({ example: 12 }) tasks_created!: number;
}

export class CampaignRuleResponse {
  @ApiProperty({ format: 'uuid' }) campaign_uuid!: string;
  @ApiProperty({ type: RuleResponse, nullable: true }) rule!: RuleResponse | null;
}
