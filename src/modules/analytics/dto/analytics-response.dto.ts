import { ApiProperty } from '@nestjs/swagger';
import { CHANNELS, Channel, VOICE_CHANNELS } from '@/modules/conversations/channels';
import { USAGE_EXAMPLE, UsageResponse } from '@/modules/usage/dto/usage.response';

export class AnalyticsRangeDto {
  @ApiProperty({ format: 'date-time', nullable: true, example: '2026-11-01T00:00:00.000Z' }) from!:
    string | null;
  @ApiProperty({ format: 'date-time', nullable: true, example: '2026-11-08T00:00:00.000Z' }) to!:
    string | null;
  @ApiProperty({ enum: CHANNELS, isArray: true, nullable: true, example: ['whatsapp'] })
  channels!: Channel[] | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, example: null }) agent_uuid!: string | null;
  @ApiProperty({ example: 'UTC' }) timezone!: string;
}

export class EndedByReasonDto {
  @ApiProperty({ example: 10 }) timeout!: number;
  @ApiProperty({ example: 4 }) closed!: number;
  @ApiProperty({ example: 2 }) call_ended!: number;
}

export class SessionStatsDto {
  @ApiProperty({ example: 18 }) count!: number;
  @ApiProperty({ example: 2 }) active!: number;
  @ApiProperty({ example: 16 }) ended!: number;
  @ApiProperty({ type: EndedByReasonDto }) ended_by_reason!: EndedByReasonDto;
  @ApiProperty({ nullable: true, description: 'over ended sessions, in seconds', example: 312.5 })
  mean_duration_seconds!: number | null;
  @ApiProperty({ example: 140 }) messages!: number;
  @ApiProperty({ type: Number, nullable: true, example: 7.78 }) messages_per_session!: number | null;
}

export class SessionChannelBucketDto extends SessionStatsDto {
  @ApiProperty({ enum: CHANNELS, example: 'whatsapp' }) channel!: Channel;
  @ApiProperty({ example: 'WhatsApp' }) channel_label!: string;
}

export class SessionDayBucketDto extends SessionStatsDto {
  @ApiProperty({ description: 'calendar day in `timezone`', example: '2026-11-03' }) date!: string;
}

export class SessionAnalyticsDto {
  @ApiProperty({ type: AnalyticsRangeDto }) range!: AnalyticsRangeDto;
  @ApiProperty({ type: SessionStatsDto }) totals!: SessionStatsDto;
  @ApiProperty({ type: [SessionChannelBucketDto] }) by_channel!: SessionChannelBucketDto[];
  @ApiProperty({ type: [SessionDayBucketDto], description: 'days with at least one session' })
  by_day!: SessionDayBucketDto[];
}

export class FeatureStatsDto {
  @ApiProperty({ example: 'success_evaluation_prompt' }) feature!: string;
  @ApiProperty({ enum: ['boolean', 'score', 'label', 'text'], example: 'boolean' }) type!: string;
  @ApiProperty({ example: 20 }) count!: number;
  @ApiProperty({ example: 18 }) completed!: number;
  @ApiProperty({ example: 1 }) failed!: number;
  @ApiProperty({ example: 1 }) skipped!: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    description: 'completed records per value (boolean features) or label (label features)',
    example: { true: 12, false: 6 },
  })
  values!: Record<string, number>;
  @ApiProperty({ type: Number, nullable: true, description: 'score features', example: null }) mean_score!:
    number | null;
  @ApiProperty({
    nullable: true,
    description: 'boolean features: share of completed records whose value is true',
    example: 0.6667,
  })
  success_rate!: number | null;
}

export class EvaluationStatsDto {
  @ApiProperty({ example: 40 }) records!: number;
  @ApiProperty({ type: [FeatureStatsDto] }) features!: FeatureStatsDto[];
}

export class EvaluationChannelBucketDto extends EvaluationStatsDto {
  @ApiProperty({ enum: CHANNELS, example: 'whatsapp' }) channel!: Channel;
  @ApiProperty({ example: 'WhatsApp' }) channel_label!: string;
}

export class EvaluationDayBucketDto extends EvaluationStatsDto {
  @ApiProperty({ example: '2026-11-03' }) date!: string;
}

export class EvaluationAnalyticsDto {
  @ApiProperty({ type: AnalyticsRangeDto }) range!: AnalyticsRangeDto;
  @ApiProperty({ type: EvaluationStatsDto }) totals!: EvaluationStatsDto;
  @ApiProperty({ type: [EvaluationChannelBucketDto] }) by_channel!: EvaluationChannelBucketDto[];
  @ApiProperty({ type: [EvaluationDayBucketDto], description: 'days with at least one record' })
  by_day!: EvaluationDayBucketDto[];
}

/** Outbound calls by who answered them, as answering-machine detection decided (calls without it are not counted). */
export class AnsweredByStatsDto {
  @ApiProperty({ example: 6 }) human!: number;
  @ApiProperty({
    example: 3,
    description: 'voicemail and answering machines (provider AMD or the greeting heard)',
  })
  machine!: number;
  @ApiProperty({ example: 0 }) fax!: number;
  @ApiProperty({ example: 1, description: 'the provider could not tell' }) unknown!: number;
}

export class CallStatsDto {
  @ApiProperty({ example: 12 }) count!: number;
  @ApiProperty({ example: 9 }) inbound!: number;
  @ApiProperty({ example: 3 }) outbound!: number;
  @ApiProperty({
    example: 10,
    description: 'calls that reached in-progress (a machine that picked up included)',
  })
  answered!: number;
  @ApiProperty({ type: AnsweredByStatsDto }) answered_by!: AnsweredByStatsDto;
  @ApiProperty({ nullable: true, description: 'ended calls, in seconds', example: 1440 })
  total_duration_seconds!: number | null;
  @ApiProperty({ type: Number, nullable: true, example: 120 }) mean_duration_seconds!: number | null;
  @ApiProperty({ type: Number, nullable: true, example: 420 }) max_duration_seconds!: number | null;
  @ApiProperty({
    type: UsageResponse,
    example: USAGE_EXAMPLE,
    description:
      "the calls' usage summed, and its cost under the workspace's current price table (null without one)",
  })
  usage!: UsageResponse;
}

export class CallChannelBucketDto extends CallStatsDto {
  @ApiProperty({ enum: [...VOICE_CHANNELS], example: 'phone' }) channel!: Channel;
  @ApiProperty({ example: 'Phone call' }) channel_label!: string;
}

export class CallDayBucketDto extends CallStatsDto {
  @ApiProperty({ example: '2026-11-03' }) date!: string;
}

export class CallAnalyticsDto {
  @ApiProperty({ type: AnalyticsRangeDto }) range!: AnalyticsRangeDto;
  @ApiProperty({ type: CallStatsDto }) totals!: CallStatsDto;
  @ApiProperty({ type: [CallChannelBucketDto] }) by_channel!: CallChannelBucketDto[];
  @ApiProperty({ type: [CallDayBucketDto] }) by_day!: CallDayBucketDto[];
}

export class UsageStatsDto extends UsageResponse {
  @ApiProperty({
    example: 14,
    description: 'conversations summed (those that used anything, and every call)',
  })
  conversations!: number;
}

export class UsageChannelBucketDto extends UsageStatsDto {
  @ApiProperty({ enum: CHANNELS, example: 'phone' }) channel!: Channel;
  @ApiProperty({ example: 'Phone call' }) channel_label!: string;
}

export class UsageDayBucketDto extends UsageStatsDto {
  @ApiProperty({ description: 'calendar day in `timezone` the conversations started', example: '2026-11-03' })
  date!: string;
}

export class UsageAgentBucketDto extends UsageStatsDto {
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'null: the agent was deleted' })
  agent_uuid!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Sales assistant' }) agent_name!: string | null;
}

export class UsageAnalyticsDto {
  @ApiProperty({ type: AnalyticsRangeDto }) range!: AnalyticsRangeDto;
  @ApiProperty({ type: UsageStatsDto }) totals!: UsageStatsDto;
  @ApiProperty({ type: [UsageChannelBucketDto] }) by_channel!: UsageChannelBucketDto[];
  @ApiProperty({ type: [UsageDayBucketDto], description: 'days with at least one conversation summed' })
  by_day!: UsageDayBucketDto[];
  @ApiProperty({ type: [UsageAgentBucketDto], description: 'agents with at least one conversation summed' })
  by_agent!: UsageAgentBucketDto[];
}
