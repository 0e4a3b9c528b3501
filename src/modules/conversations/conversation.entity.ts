import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';
import type { Channel } from './channels';

export type ConversationStatus = 'active' | 'closed';
/** `live`: held with the agent as it happened; `transcription`: a recorded call turned into a conversation. */
export const CONVERSATION_SOURCES = ['live', 'transcription'] as const;
export type ConversationSource = (typeof CONVERSATION_SOURCES)[number];

/** One thread between a customer and an agent on one channel. */
@Entity('conversations')
export class Conversation extends WorkspaceOwnedEntity {
  @Column('uuid', { nullable: true }) agentId!: string | null;
  @Column('uuid', { nullable: true }) contactId!: string | null;
  @Column('varchar', { length: 20 }) channel!: Channel;
  @Column('varchar', { length: 10, default: 'active' }) status!: ConversationStatus;
  @Column('varchar', { length: 20, default: 'live' }) source!: ConversationSource;
  /** The customer's address on the channel (E.164 for phone, SMS and WhatsApp). */
  @Column('varchar', { length: 64, nullable: true }) phone!: string | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) lastMessageAt!: Date | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) closedAt!: Date | null;
}

/**
 * What a turn needs to know of its conversation before it is locked: a caller that knows these (a call's runtime,
 * from the call row) lets the reply start beside the customer's message write.
 */
export type ConversationRef = Pick<Conversation, 'id' | 'workspaceId' | 'channel' | 'contactId'>;
