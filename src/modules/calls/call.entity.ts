import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';
import type { CallStatus, ProviderError } from '@/providers/telephony/telephony.port';
import type { VoicemailPolicy } from '@/modules/agents/voicemail-policy';
import type { AnsweredBy, MachineDetection } from './runtime/voicemail';

export type CallDirection = 'Inbound' | 'Outbound';
export type CallChannel = 'phone' | 'whatsapp_call' | 'web';
export type HandledBy = 'AI' | 'Human';

export interface ForwardedTo {
  type: 'phone_number' | 'extension' | 'agent';
  value: string | null;
  agent_uuid: string | null;
}

/** The call record of a call conversation; its id is the conversation's. */
@Entity('calls')
export class Call extends WorkspaceOwnedEntity {
  @Column('uuid', { nullable: true }) agentId!: string | null;
  @Column('uuid', { nullable: true }) contactId!: string | null;
  @Column('uuid', { nullable: true }) phoneNumberId!: string | null;
  @Column('varchar', { length: 10 }) direction!: CallDirection;
  @Column('varchar', { length: 20 }) channel!: CallChannel;
  @Column('varchar', { length: 20 }) status!: CallStatus;
  @Column('varchar', { length: 30, nullable: true }) endReason!: string | null;
  @Column('jsonb', { nullable: true }) error!: ProviderError | null;
  @Column('varchar', { length: 10, default: 'AI' }) handledBy!: HandledBy;
  @Column('varchar', { length: 32 }) fromNumber!: string;
  @Column('varchar', { length: 32 }) toNumber!: string;
  @Column('varchar', { length: 20 }) provider!: string;
  @Column('varchar', { length: 64, nullable: true }) providerCallId!: string | null;
  @Column('boolean') isSimulation!: boolean;
  @Column('boolean', { default: false }) muted!: boolean;
  @Column('jsonb', { nullable: true }) forwardedTo!: ForwardedTo | null;
  @Column('jsonb', { default: {} }) variables!: Record<string, string>;
  @Column('jsonb', { default: {} }) metadata!: Record<string, unknown>;
  @Column('text', { nullable: true }) firstMessage!: string | null;
  @Column('jsonb', { nullable: true }) prompt!: { content: string; overwrite: boolean } | null;
  @Column('text', { nullable: true }) about!: string | null;
  @Column('boolean', { default: false }) record!: boolean;
  @Column('int') maxDurationSeconds!: number;
  @Column('int') ringTimeoutSeconds!: number;
  @Column('int') silenceTimeoutSeconds!: number;
  @Column('uuid', { nullable: true }) campaignId!: string | null;
  @Column('uuid', { nullable: true }) taskId!: string | null;
  @Column('uuid', { nullable: true }) listingId!: string | null;
  @Column('jsonb', { nullable: true }) recording!: Record<string, unknown> | null;
  /** Who answered an outbound call with detection on, once known (provider AMD or the first words heard). */
  @Column('varchar', { length: 10, nullable: true }) answeredBy!: AnsweredBy | null;
  /** The answering-machine policy the call was placed with (outbound calls only). */
  @Column('jsonb', { nullable: true }) voicemail!: VoicemailPolicy | null;
  @Column('jsonb', { nullable: true }) machineDetection!: MachineDetection | null;
  /** Every provider event received, applied or not (a late one is kept here only). */
  @Column('jsonb', { default: [] }) providerLog!: Record<string, unknown>[];
  /** The process holding the call's media session, which performs its live actions. */
  @Column('varchar', { length: 64, nullable: true }) ownerId!: string | null;
  /** The last moment someone spoke: the silence timeout counts from here. */
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) lastActivityAt!: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) answeredAt!: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) endedAt!: Date | null;
}
