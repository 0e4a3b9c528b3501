import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsISO8601,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { PageQuery } from '@/common/http/pagination';
import { IsE164, IsUuidValue } from '@/common/validation/validators';
import { CALL_STATUSES } from '@/providers/telephony/telephony.port';
import { VOICEMAIL_ACTIONS } from '@/modules/agents/voicemail-policy';
import { DTMF_SEQUENCE, DTMF_SEQUENCE_RULE } from '@/common/telephony/dtmf';

export const CALL_CHANNELS = ['phone', 'whatsapp_call'] as const;
/** What `communication` a call may have: the channels placed by `POST /call`, and calls from a browser. */
export const CALL_COMMUNICATIONS = [...CALL_CHANNELS, 'web'] as const;

export class CallPromptDto {
  @ApiProperty({ maxLength: 20000 }) @IsDefined() @IsString() @MaxLength(20000) content!: string;
  @ApiPropertyOptional({
    default: false,
    description: "true replaces the agent's custom_prompt for this call",
  })
  @IsOptional()
  @IsBoolean()
  overwrite?: boolean;
}

/** A level of the answering-machine policy (`settings.voice.voicemail`, a campaign's, a call's): keys left out inherit. */
export class VoicemailOverrideDto {
  @ApiPropertyOptional({
    default: false,
    description:
      'run answering-machine detection on the outbound call. Twilio: asynchronous AMD (DetectMessageEnd), billed ' +
      'per call it runs on; a person is told within a few seconds of the pick-up, a machine only once its greeting ' +
      'ends (up to 30 s, the call going on meanwhile). The first words heard are checked for a voicemail or ' +
      'call-screening greeting as well (no extra cost).',
  })
  detection?: boolean;
  @ApiPropertyOptional({
    enum: VOICEMAIL_ACTIONS,
    default: 'hang_up',
    description:
      'on a machine: hang_up ends the call at once, leave_message says `message` after the beep then hangs up ' +
      '(both end_reason voicemail), continue lets the agent go on; a fax always hangs up',
  })
  action?: (typeof VOICEMAIL_ACTIONS)[number];
  @ApiPropertyOptional({
    maxLength: 2000,
    nullable: true,
    description: 'said with leave_message; {{variables}} are filled as in first_message',
  })
  message?: string | null;
  @ApiPropertyOptional({
    default: false,
    description:
      "a task's call that reached a machine is tried again under the campaign's retry interval and attempts",
  })
  retry_on_voicemail?: boolean;
}

/** The source product's `participant`. */
export class ParticipantAliasDto {
  @ApiPropertyOptional({ example: '+14155552671' }) @IsOptional() @IsString() @MaxLength(32) number?: string;
  @ApiPropertyOptional({ maxLength: 2000 }) @IsOptional() @IsString() @MaxLength(2000) about?: string;
}

/** The source product's `message`. */
export class MessageAliasDto {
  @ApiPropertyOptional({ maxLength: 2000 }) @IsOptional() @IsString() @MaxLength(2000) start?: string;
}

/**
 * `POST /call`. The source product's camelCase body is accepted too (deprecated aliases); with both spellings the
 * snake_case one wins. Required fields are checked after the aliases are folded in, so they are optional here.
 */
export class CreateCallDto {
  @ApiProperty({ format: 'uuid', required: true }) @IsOptional() @IsUuidValue() agent_uuid?: string;
  @ApiProperty({ example: '+14155552671', required: true, description: 'E.164' })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  to?: string;
  @ApiPropertyOptional({
    format: 'uuid',
    description: "caller ID; default the number bound to the agent's call channel",
  })
  @IsOptional()
  @IsUuidValue()
  phone_number_uuid?: string;
  @ApiPropertyOptional({ description: 'alias of phone_number_uuid: that UUID or the number in E.164' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  from?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() contact_uuid?: string;
  @ApiPropertyOptional({ enum: CALL_CHANNELS, default: 'phone' })
  @IsOptional()
  @IsIn(CALL_CHANNELS, { message: `channel must be one of ${CALL_CHANNELS.join(', ')}` })
  channel?: (typeof CALL_CHANNELS)[number];
  @ApiPropertyOptional({ maxLength: 2000 }) @IsOptional() @IsString() @MaxLength(2000) first_message?: string;
  @ApiPropertyOptional({ type: CallPromptDto, description: 'the source alias is a plain string' })
  @IsOptional()
  prompt?: CallPromptDto | string;
  @ApiPropertyOptional({ maxLength: 2000 }) @IsOptional() @IsString() @MaxLength(2000) about?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string', maxLength: 500 } })
  @IsOptional()
  @IsObject()
  variables?: Record<string, unknown>;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;
  @ApiPropertyOptional({
    description:
      "Keep a recording of the call (Twilio calls only); default the agent's settings.voice.record, else true",
  })
  @IsOptional()
  @IsBoolean()
  record?: boolean;
  @ApiPropertyOptional({ minimum: 30, maximum: 7200 })
  @IsOptional()
  @IsInt()
  @Min(30)
  @Max(7200)
  max_duration_seconds?: number;
  @ApiPropertyOptional({ minimum: 5, maximum: 120, default: 30 })
  @IsOptional()
  @IsInt()
  @Min(5)
  @Max(120)
  ring_timeout_seconds?: number;
  @ApiPropertyOptional({
    type: VoicemailOverrideDto,
    description:
      "this call's answering-machine policy: the keys sent win over the agent's settings.voice.voicemail",
  })
  @IsOptional()
  voicemail?: VoicemailOverrideDto;

  @ApiPropertyOptional({ format: 'uuid', deprecated: true, description: 'alias of agent_uuid' })
  @IsOptional()
  @IsUuidValue()
  agentId?: string;
  @ApiPropertyOptional({
    type: ParticipantAliasDto,
    deprecated: true,
    description: 'number: to; about: about',
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => ParticipantAliasDto)
  participant?: ParticipantAliasDto;
  @ApiPropertyOptional({ type: MessageAliasDto, deprecated: true, description: 'start: first_message' })
  @IsOptional()
  @ValidateNested()
  @Type(() => MessageAliasDto)
  message?: MessageAliasDto;
  @ApiPropertyOptional({ deprecated: true, description: 'alias of from' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  phoneNumber?: string;
}

const csv = ({ value }: { value: unknown }) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : value;

export class ListCallsQuery extends PageQuery {
  @ApiPropertyOptional({
    type: String,
    maxLength: 200,
    example: 'in-progress,ringing',
    description: 'comma-separated statuses',
  })
  @IsOptional()
  @Transform(csv)
  @IsIn(CALL_STATUSES, { each: true, message: `status must be among ${CALL_STATUSES.join(', ')}` })
  @ArrayMaxSize(CALL_STATUSES.length)
  status?: string[];
  @ApiPropertyOptional({ enum: ['Inbound', 'Outbound'] })
  @IsOptional()
  @IsIn(['Inbound', 'Outbound'], { message: 'direction must be one of Inbound, Outbound' })
  direction?: string;
  @ApiPropertyOptional({ enum: CALL_COMMUNICATIONS })
  @IsOptional()
  @IsIn(CALL_COMMUNICATIONS, { message: `communication must be one of ${CALL_COMMUNICATIONS.join(', ')}` })
  communication?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() agent_uuid?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() contact_uuid?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() campaign_uuid?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() task_uuid?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() phone_number_uuid?: string;
  @ApiPropertyOptional({ description: "substring of the customer's number" })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  phone?: string;
  @ApiPropertyOptional({ enum: ['true', 'false'] })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'is_simulation must be true or false' })
  is_simulation?: string;
  @ApiPropertyOptional({ description: 'created at or after (inclusive)' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'from must be an ISO 8601 date-time' })
  from?: string;
  @ApiPropertyOptional({ description: 'created before (exclusive)' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'to must be an ISO 8601 date-time' })
  to?: string;
}

export class SayActionDto {
  @ApiProperty({ maxLength: 2000 })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(2000)
  message!: string;
  @ApiPropertyOptional({ default: false }) @IsOptional() @IsBoolean() end_call_after_spoken?: boolean;
  @ApiPropertyOptional({ default: false }) @IsOptional() @IsBoolean() interrupt?: boolean;
}

export class ForwardActionDto {
  @ApiPropertyOptional({ example: '+14155552671', description: 'exactly one of number and agent_uuid' })
  @IsOptional()
  @IsE164()
  @MaxLength(32)
  number?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() agent_uuid?: string;
  @ApiPropertyOptional({ maxLength: 2000, default: 'Transferring your call now.' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  message?: string;
  @ApiPropertyOptional({ default: false }) @IsOptional() @IsBoolean() whisper?: boolean;
}

export class HangupActionDto {
  @ApiPropertyOptional({ maxLength: 2000 }) @IsOptional() @IsString() @MaxLength(2000) message?: string;
}

export class DtmfActionDto {
  @ApiProperty({
    example: '1w2#',
    pattern: DTMF_SEQUENCE.source,
    maxLength: 32,
    description: `the keys to press: ${DTMF_SEQUENCE_RULE}`,
  })
  @IsDefined()
  @IsString()
  @Matches(DTMF_SEQUENCE, { message: `digits must be ${DTMF_SEQUENCE_RULE}` })
  digits!: string;
}

export const SIMULATE_ACTIONS = ['say', 'dtmf', 'answer', 'busy', 'no_answer', 'fail', 'hangup'] as const;
export type SimulateAction = (typeof SIMULATE_ACTIONS)[number];

export class SimulateCallDto {
  @ApiProperty({ enum: SIMULATE_ACTIONS })
  @IsDefined()
  @IsIn(SIMULATE_ACTIONS, { message: `action must be one of ${SIMULATE_ACTIONS.join(', ')}` })
  action!: SimulateAction;
  @ApiPropertyOptional({ maxLength: 2000, description: 'say: what the customer says' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(2000)
  text?: string;
  @ApiPropertyOptional({ example: '12#', description: 'dtmf: the digits pressed' })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  digits?: string;
}

export class SimulateInboundDto {
  @ApiProperty({ example: '+14155550100', description: 'a sandbox number of the workspace' })
  @IsDefined()
  @IsE164()
  to!: string;
  @ApiProperty({ example: '+14155552671' }) @IsDefined() @IsE164() from!: string;
  @ApiPropertyOptional({ enum: CALL_CHANNELS, default: 'phone' })
  @IsOptional()
  @IsIn(CALL_CHANNELS, { message: `channel must be one of ${CALL_CHANNELS.join(', ')}` })
  channel?: (typeof CALL_CHANNELS)[number];
}
