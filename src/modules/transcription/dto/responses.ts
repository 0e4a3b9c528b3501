import { ApiProperty } from '@nestjs/swagger';
import { EvaluationRecordResponse } from '@/modules/evaluation/dto/responses';
import type { Transcription } from '../transcription.entity';

const iso = (d: Date | null): string | null => (d ? new Date(d).toISOString() : null);

export const QA_STATUSES = ['none', 'pending', 'completed', 'failed'] as const;
export type QaStatus = (typeof QA_STATUSES)[number];

export class TranscriptionFileDto {
  @ApiProperty({ type: String, nullable: true, example: 'call-1842.wav' }) name!: string | null;
  @ApiProperty({ type: Number, nullable: true, example: 960044 }) bytes!: number | null;
  @ApiProperty({ type: Number, nullable: true, example: 30.0, description: 'seconds' }) duration!:
    number | null;
}

export class TranscriptionResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ type: String, nullable: true, example: 'crm-call-1842' }) reference_id!: string | null;
  @ApiProperty({ enum: ['pending', 'processing', 'completed', 'failed'], example: 'pending' })
  status!: string;
  @ApiProperty({ enum: QA_STATUSES, example: 'none' }) qa_status!: QaStatus;
  @ApiProperty({ type: String, nullable: true, example: null }) error!: string | null;
  @ApiProperty({ example: 0 }) attempts!: number;
  @ApiProperty({ type: TranscriptionFileDto }) file!: TranscriptionFileDto;
  @ApiProperty({ type: String, nullable: true, example: 'en' }) language!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) contact_uuid!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) qa_agent_uuid!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) coaching_agent_uuid!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) conversation_uuid!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) session_uuid!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true }) metadata!: Record<
    string,
    unknown
  > | null;
  @ApiProperty({ example: '2026-11-20T10:00:00.000Z' }) created_at!: string;
  @ApiProperty({ type: String, nullable: true, example: '2026-11-20T10:00:12.000Z' }) processed_at!:
    string | null;

  static of(t: Transcription, qaStatus: QaStatus): TranscriptionResponse {
    return {
      uuid: t.id,
      reference_id: t.referenceId,
      status: t.status,
      qa_status: qaStatus,
      error: t.error,
      attempts: t.attempts,
      file: { name: t.fileName, bytes: t.fileBytes, duration: t.duration },
      language: t.language,
      contact_uuid: t.contactId,
      qa_agent_uuid: t.qaAgentId,
      coaching_agent_uuid: t.coachingAgentId,
      conversation_uuid: t.conversationId,
      session_uuid: t.sessionId,
      metadata: t.metadata,
      created_at: iso(t.createdAt)!,
      processed_at: iso(t.processedAt),
    };
  }
}

export class TranscriptSegmentDto {
  @ApiProperty({ example: 0 }) id!: number;
  @ApiProperty({ example: 0.0 }) start!: number;
  @ApiProperty({ example: 2.4 }) end!: number;
  @ApiProperty({ enum: ['agent', 'customer', 'unknown'] }) speaker!: string;
  @ApiProperty({ example: 'Hello, how can I help?' }) text!: string;
}

export class TranscriptMessageDto {
  @ApiProperty({ enum: ['agent', 'customer', 'unknown'] }) role!: string;
  @ApiProperty({ example: 'Hello, how can I help?' }) content!: string;
}

export class TranscriptConversationDto {
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) uuid!: string | null;
  @ApiProperty({ example: 'Agent: Hello, how can I help?\nCustomer: My parcel is late.' }) plain!: string;
  @ApiProperty({ type: TranscriptMessageDto, isArray: true }) messages!: TranscriptMessageDto[];
}

export class TranscriptSessionDto {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ enum: ['voice'] }) type!: string;
  @ApiProperty({ enum: ['active', 'ended'] }) status!: string;
}

export class TranscriptResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ type: String, nullable: true }) reference_id!: string | null;
  @ApiProperty({ enum: ['completed'] }) status!: string;
  @ApiProperty({ type: String, nullable: true, example: 'en' }) language!: string | null;
  @ApiProperty({ type: Number, nullable: true, example: 30.0 }) duration!: number | null;
  @ApiProperty({ example: 'Hello, how can I help? My parcel is late.' }) text!: string;
  @ApiProperty({ type: TranscriptSegmentDto, isArray: true }) segments!: TranscriptSegmentDto[];
  @ApiProperty({ type: TranscriptConversationDto }) conversation!: TranscriptConversationDto;
  @ApiProperty({ type: TranscriptSessionDto, nullable: true }) session!: TranscriptSessionDto | null;
  @ApiProperty({ type: EvaluationRecordResponse, isArray: true }) evaluations!: EvaluationRecordResponse[];
  @ApiProperty({ type: String, nullable: true }) processed_at!: string | null;
}
