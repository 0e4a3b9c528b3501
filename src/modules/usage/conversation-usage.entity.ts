import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';

/** What one conversation has used so far (its id is the conversation's, so a call's is the call's). */
@Entity('conversation_usage')
export class ConversationUsage extends WorkspaceOwnedEntity {
  @Column('bigint') promptTokens!: string;
  @Column('bigint') completionTokens!: string;
  @Column('bigint') sttMs!: string;
  @Column('bigint') ttsCharacters!: string;
  @Column('int') toolCalls!: number;
  @Column('int') forwardedSeconds!: number;
}
