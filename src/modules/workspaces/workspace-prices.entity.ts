import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { WorkspaceId } from '@/common/auth/workspace-id';

/**
 * A workspace's optional price table: what one unit of each usage costs, in `currency` (ISO 4217). Amounts are
 * numeric(18, 9), read and written as decimal strings, never floats.
 */
@Entity('workspace_prices')
export class WorkspacePrices {
  @PrimaryColumn('uuid') workspaceId!: WorkspaceId;
  @Column('char', { length: 3 }) currency!: string;
  @Column('numeric', { name: 'llm_prompt_per_1k', precision: 18, scale: 9 }) llmPromptPer1k!: string;
  @Column('numeric', { name: 'llm_completion_per_1k', precision: 18, scale: 9 }) llmCompletionPer1k!: string;
  @Column('numeric', { precision: 18, scale: 9 }) sttPerMinute!: string;
  @Column('numeric', { name: 'tts_per_1k_characters', precision: 18, scale: 9 }) ttsPer1kCharacters!: string;
  @Column('numeric', { precision: 18, scale: 9 }) callPerMinute!: string;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt!: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt!: Date;
}
