import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';
import type { StoredSegment } from './transcript-merge';

export const TRANSCRIPTION_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;
export type TranscriptionStatus = (typeof TRANSCRIPTION_STATUSES)[number];

/** A recorded call to transcribe: the audio (uploaded or fetched), its state, and the transcript once done. */
@Entity('transcriptions')
export class Transcription extends WorkspaceOwnedEntity {
  @Column('varchar', { length: 12 }) status!: TranscriptionStatus;
  @Column('text', { nullable: true }) error!: string | null;
  @Column('int', { default: 0 }) attempts!: number;
  @Column('varchar', { length: 255, nullable: true }) referenceId!: string | null;
  @Column('varchar', { length: 255, nullable: true }) fileName!: string | null;
  @Column('bigint', {
    nullable: true,
    transformer: { to: (v: number | null) => v, from: (v: string | null) => (v === null ? null : Number(v)) },
  })
  fileBytes!: number | null;
  /** The agent's (or only) track on disk, once uploaded or downloaded. */
  @Column('text', { nullable: true }) filePath!: string | null;
  @Column('text', { nullable: true }) customerFilePath!: string | null;
  @Column('varchar', { length: 2048, nullable: true }) voiceUrl!: string | null;
  @Column('varchar', { length: 2048, nullable: true }) customerVoiceUrl!: string | null;
  @Column('double precision', { nullable: true }) duration!: number | null;
  @Column('varchar', { length: 16, nullable: true }) language!: string | null;
  @Column('varchar', { length: 8, nullable: true }) possibleLanguage!: string | null;
  @Column('text', { nullable: true }) possibleConversation!: string | null;
  @Column('uuid', { nullable: true }) contactId!: string | null;
  @Column('varchar', { length: 32, nullable: true }) customerPhone!: string | null;
  @Column('varchar', { length: 320, nullable: true }) customerEmail!: string | null;
  @Column('varchar', { length: 320, nullable: true }) email!: string | null;
  @Column('varchar', { length: 2048, nullable: true }) webhookUrl!: string | null;
  @Column('text', { nullable: true }) webhookTokenCiphertext!: string | null;
  @Column('uuid', { nullable: true }) qaAgentId!: string | null;
  @Column('uuid', { nullable: true }) coachingAgentId!: string | null;
  @Column('uuid', { nullable: true }) conversationId!: string | null;
  @Column('uuid', { nullable: true }) sessionId!: string | null;
  @Column('jsonb', { nullable: true }) metadata!: Record<string, unknown> | null;
  @Column('text', { nullable: true }) text!: string | null;
  @Column('jsonb', { nullable: true }) segments!: StoredSegment[] | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) processedAt!: Date | null;
}
