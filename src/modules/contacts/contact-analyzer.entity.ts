import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';

export const UPDATE_BEHAVIORS = [
  'dont_update',
  'update_if_empty',
  'ask_approval_if_existing',
  'manual_approval',
  'automatic_update',
] as const;
export type UpdateBehavior = (typeof UPDATE_BEHAVIORS)[number];
export const DEFAULT_UPDATE_BEHAVIOR: UpdateBehavior = 'update_if_empty';

export type AnalyzerKind = 'builtin' | 'field' | 'stage';

/**
 * The stored settings of one analyzer (a row exists only once it was changed): a built-in contact field by name,
 * a custom field or a pipeline stage by id (their rows go with them).
 */
@Entity('contact_analyzers')
export class ContactAnalyzer extends WorkspaceOwnedEntity {
  @Column('varchar', { length: 10 }) kind!: AnalyzerKind;
  @Column('varchar', { length: 40, nullable: true }) builtinField!: string | null;
  @Column('uuid', { nullable: true }) fieldId!: string | null;
  @Column('uuid', { nullable: true }) stageId!: string | null;
  @Column('varchar', { length: 30 }) updateBehavior!: UpdateBehavior;
  @Column('text', { nullable: true }) analysisGoals!: string | null;
  @Column('text', { nullable: true }) exampleValues!: string | null;
}
