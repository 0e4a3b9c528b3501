import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';
import type { Channel } from './channels';

export type MessageDirection = 'inbound' | 'outbound';
export type MessageSender = 'customer' | 'agent' | 'system';

/** One turn of a conversation. Channel, agent and contact are copied from the conversation for the export. */
@Entity('messages')
export class Message extends WorkspaceOwnedEntity {
  @Column('uuid') conversationId!: string;
  @Column('uuid', { nullable: true }) sessionId!: string | null;
  @Column('uuid', { nullable: true }) agentId!: string | null;
  @Column('uuid', { nullable: true }) contactId!: string | null;
  @Column('varchar', { length: 20 }) channel!: Channel;
  @Column('varchar', { length: 10 }) direction!: MessageDirection;
  @Column('varchar', { length: 10 }) sender!: MessageSender;
  @Column('varchar', { length: 20, default: 'text' }) messageType!: string;
  @Column('text') content!: string;
  /** An agent reply cut by the customer speaking over it (a call's barge-in). */
  @Column('boolean', { default: false }) interrupted!: boolean;
}
