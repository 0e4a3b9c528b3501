import { ApiProperty } from '@nestjs/swagger';
import type { EvaluationRecord } from '../evaluation-record.entity';

export class EvaluationRecordResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ format: 'uuid' }) session_uuid!: string;
  @ApiProperty({ format: 'uuid' }) conversation_uuid!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) contact_uuid!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) agent_uuid!: string | null;
  @ApiProperty({ example: 'chat' }) channel!: string;
  @ApiProperty({ example: 'success_evaluation_prompt' }) feature!: string;
  @ApiProperty({ enum: ['boolean', 'score', 'label', 'text'], example: 'boolean' }) type!: string;
  @ApiProperty({
    example: true,
    nullable: true,
    description: 'boolean, number (score), or string (label, text)',
  })
  value!: unknown;
  @ApiProperty({ example: null, nullable: true, type: Number }) score!: number | null;
  @ApiProperty({ example: null, nullable: true, type: String }) label!: string | null;
  @ApiProperty({ example: 'The customer received the tracking link.', nullable: true }) reason!:
    string | null;
  @ApiProperty({ enum: ['completed', 'failed', 'skipped'], example: 'completed' }) status!: string;
  @ApiProperty({ example: 3 }) settings_version!: number;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) created_at!: string;

  static of(r: EvaluationRecord): EvaluationRecordResponse {
    return {
      uuid: r.id,
      session_uuid: r.sessionId,
      conversation_uuid: r.conversationId,
      contact_uuid: r.contactId,
      agent_uuid: r.agentId,
      channel: r.channel,
      feature: r.feature,
      type: r.type,
      value: r.value ?? null,
      score: r.score,
      label: r.label,
      reason: r.reason,
      status: r.status,
      settings_version: r.settingsVersion,
      created_at: r.createdAt.toISOString(),
    };
  }
}

export class SessionEvaluationResponse {
  @ApiProperty({ format: 'uuid' }) session_uuid!: string;
  @ApiProperty({
    enum: ['evaluated', 'not_evaluated', 'pending', 'session_active'],
    example: 'evaluated',
    description: 'not_evaluated: the settings were inactive at session end',
  })
  status!: string;
  @ApiProperty({ type: String, example: '2026-11-22T04:17:55.123Z', nullable: true }) evaluated_at!:
    string | null;
  @ApiProperty({ example: 'The customer asked for a refund and got it.', nullable: true }) summary!:
    string | null;
  @ApiProperty({ type: [EvaluationRecordResponse] }) records!: EvaluationRecordResponse[];
}
