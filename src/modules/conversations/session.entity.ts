import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';
import type { Channel } from './channels';

export type SessionStatus = 'active' | 'ended';
export type SessionEndReason = 'timeout' | 'closed' | 'call_ended';

/** A stretch of a conversation; it ends on customer idleness, on close, or when the call ends, and is then evaluated. */
@Entity('sessions')
export class Session extends WorkspaceOwnedEntity {
  @Column('uuid') conversationId!: string;
  @Column('uuid', { nullable: true }) agentId!: string | null;
  @Column('uuid', { nullable: true }) contactId!: string | null;
  @Column('varchar', { length: 20 }) channel!: Channel;
  @Column('varchar', { length: 10, default: 'active' }) status!: SessionStatus;
  @Column({ type: 'timestamptz', precision: 3 }) startedAt!: Date;
  @Column({ type: 'timestamptz', precision: 3 }) lastActivityAt!: Date;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) endedAt!: Date | null;
  @Column('varchar', { length: 20, nullable: true }) endReason!: SessionEndReason | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) evaluatedAt!: Date | null;
  @Column('text', { nullable: true }) summary!: string | null;
  @Column('int', { default: 0 }) messageCount!: number;
  /** Idle timeout in force when the session last moved, in milliseconds. */
  @Column('int') timeoutMs!: number;
  /** When the end report (and evaluation events) went to the outbox: the evaluation job's done-marker. */
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) endReportedAt!: Date | null;
  /** When memorize last updated the contact from this session. */
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) memorizedAt!: Date | null;
}
