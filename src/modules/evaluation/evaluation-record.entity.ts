import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';
import type { Channel } from '@/modules/conversations/channels';
import type { FeatureType } from '@/modules/agents/settings/evaluation-settings';

export type EvaluationStatus = 'completed' | 'failed' | 'skipped';

/** One analyzer's result for one session: at most one per (session, feature). */
@Entity('evaluation_records')
export class EvaluationRecord extends WorkspaceOwnedEntity {
  @Column('uuid') sessionId!: string;
  @Column('uuid') conversationId!: string;
  @Column('uuid', { nullable: true }) contactId!: string | null;
  @Column('uuid', { nullable: true }) agentId!: string | null;
  @Column('varchar', { length: 20 }) channel!: Channel;
  @Column('varchar', { length: 100 }) feature!: string;
  @Column('varchar', { length: 10 }) type!: FeatureType;
  /** boolean for `boolean`, number for `score`, string for `label` and `text`; null when not completed. */
  @Column('jsonb', { nullable: true }) value!: unknown;
  @Column('numeric', {
    precision: 5,
    scale: 2,
    nullable: true,
    transformer: { to: (v: unknown) => v, from: (v: string | null) => (v === null ? null : Number(v)) },
  })
  score!: number | null;
  @Column('text', { nullable: true }) label!: string | null;
  @Column('text', { nullable: true }) reason!: string | null;
  @Column('varchar', { length: 10 }) status!: EvaluationStatus;
  @Column('int') settingsVersion!: number;
}
