import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsIn, IsISO8601, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { PageQuery } from '@/common/http/pagination';
import { IsE164, IsHttpsUrl, IsUuidValue } from '@/common/validation/validators';
import { TRANSCRIPTION_STATUSES, TranscriptionStatus } from '../transcription.entity';

/** The largest audio a transcription takes, uploaded or fetched. */
export const MAX_AUDIO_BYTES = 128 * 1024 * 1024;

/** The fields of `POST /transcriptions` besides the file (multipart fields or a JSON body). */
export class CreateTranscriptionDto {
  @ApiPropertyOptional({ example: 'https://recordings.example.com/call-1842.wav', maxLength: 2048 })
  @IsOptional()
  @IsHttpsUrl()
  voice_url?: string;

  @ApiPropertyOptional({
    example: 'https://recordings.example.com/call-1842-customer.wav',
    description: "the customer's separate track; voice_file or voice_url is then the agent's",
  })
  @IsOptional()
  @IsHttpsUrl()
  customer_voice_url?: string;

  @ApiPropertyOptional({ example: 'en', maxLength: 2, description: 'ISO 639-1 hint' })
  @IsOptional()
  @Matches(/^[a-z]{2}$/, { message: 'possible_language must be an ISO 639-1 code (two lowercase letters)' })
  possible_language?: string;

  @ApiPropertyOptional({ example: 'A customer calls about a late delivery.', maxLength: 2000 })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  possible_conversation?: string;

  @ApiPropertyOptional({ example: 'crm-call-1842', maxLength: 255 })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  reference_id?: string;

  @ApiPropertyOptional({ example: '+14155552671', description: 'matched to a contact, never created' })
  @IsOptional()
  @IsE164()
  customer_phone?: string;

  @ApiPropertyOptional({ example: 'ada@example.com', description: 'matched to a contact, never created' })
  @IsOptional()
  @IsEmail({}, { message: 'customer_email must be an email address' })
  @MaxLength(320)
  customer_email?: string;

  @ApiPropertyOptional({ example: 'agent.smith@example.com', description: 'the human agent on the call' })
  @IsOptional()
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(320)
  email?: string;

  @ApiPropertyOptional({ example: 'https://crm.example.com/hooks/transcriptions' })
  @IsOptional()
  @IsHttpsUrl()
  webhook_url?: string;

  @ApiPropertyOptional({
    example: 'c2VjcmV0LXRva2Vu',
    maxLength: 1000,
    description: 'sent as a bearer token',
  })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  webhook_header_token?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'evaluate the transcript with this agent' })
  @IsOptional()
  @IsUuidValue()
  qa_agent_uuid?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUuidValue()
  coaching_agent_uuid?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'JSON object (a JSON string in multipart), at most 50 keys and 8 KB',
  })
  @IsOptional()
  metadata?: Record<string, unknown> | string;
}

export class CreateTranscriptionSchema extends CreateTranscriptionDto {
  @ApiProperty({
    type: 'string',
    format: 'binary',
    maxLength: MAX_AUDIO_BYTES,
    required: false,
    description: 'the recording (up to 128 MB; audio detected from the bytes); or voice_url',
  })
  voice_file?: unknown;
}

export class ListTranscriptionsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: TRANSCRIPTION_STATUSES })
  @IsOptional()
  @IsIn(TRANSCRIPTION_STATUSES, { message: `status must be one of ${TRANSCRIPTION_STATUSES.join(', ')}` })
  status?: TranscriptionStatus;
  @ApiPropertyOptional({ example: 'crm-call-1842' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  reference_id?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() contact_uuid?: string;
  @ApiPropertyOptional({ example: '2026-11-01T00:00:00Z', description: 'created at or after' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'from must be an ISO 8601 date-time' })
  from?: string;
  @ApiPropertyOptional({ example: '2026-12-01T00:00:00Z', description: 'created at or before' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'to must be an ISO 8601 date-time' })
  to?: string;
}
