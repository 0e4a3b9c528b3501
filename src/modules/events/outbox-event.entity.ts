import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';

export const EVENT_TYPES = [
  'conversation_status',
  'conversation_update',
  'conversation_end_report',
  'voice_evaluation',
  'text_evaluation',
  'intent_call',
  'flow_execution',
  'contact_created',
  'appointment_created',
  'message_status',
  'whatsapp_template_status',
  'transcription_completed',
  'transcription_failed',
  'recording_ready',
  'campaign_status',
  'task_status',
  'call_voicemail',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** A domain event, written in the same transaction as the change it describes, delivered later. */
@Entity('outbox_events')
export class OutboxEvent extends WorkspaceOwnedEntity {
  @Column('varchar', { length: 40 }) type!: EventType;
  @Column('uuid', { nullable: true }) agentId!: string | null;
  @Column('jsonb') data!: Record<string, unknown>;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) dispatchedAt!: Date | null;
  /** The flow executions whose actions caused the event, oldest first (the loop guard reads its length). */
  @Column('uuid', { array: true, nullable: true }) chain!: string[] | null;
}
