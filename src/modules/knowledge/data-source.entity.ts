import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';
import type { Column as TableColumn } from './column-types';

export const DATA_SOURCE_TYPES = ['table', 'copypaste', 'file', 'website'] as const;
export type DataSourceType = (typeof DATA_SOURCE_TYPES)[number];

/** Import state: 0 queued, 1 processing, 2 ready, 3 failed; `process` is the same in words. */
export const STATUS = { queued: 0, processing: 1, ready: 2, failed: 3 } as const;
export const PROCESS_WORDS = ['queued', 'processing', 'ready', 'failed'] as const;

export const SYNC_STATUSES = ['never', 'queued', 'syncing', 'synced', 'failed'] as const;
export type SyncStatus = (typeof SYNC_STATUSES)[number];

/** What an import job needs to (re)run; never shown to clients. */
export interface ImportOptions {
  file?: string;
  kind?: string;
  originalName?: string;
  url?: string;
  depth?: number;
  text?: string;
}

/** A typed table or an imported knowledge source; its rows live in its own table (see records-table.ts). */
@Entity('data_sources')
export class KnowledgeSource extends WorkspaceOwnedEntity {
  @Column('varchar', { length: 200 }) name!: string;
  @Column('text', { nullable: true }) description!: string | null;
  @Column('varchar', { length: 20 }) type!: DataSourceType;
  @Column('text', { nullable: true }) pathUrl!: string | null;
  @Column('varchar', { length: 20, nullable: true }) pathExt!: string | null;
  @Column('smallint', { default: 0 }) status!: number;
  @Column('text', { nullable: true }) error!: string | null;
  @Column('integer', { nullable: true }) progressDone!: number | null;
  @Column('integer', { nullable: true }) progressTotal!: number | null;
  @Column('jsonb', { default: () => `'[]'` }) columns!: TableColumn[];
  @Column('jsonb', { default: () => `'{}'` }) options!: ImportOptions;
  @Column('varchar', { length: 20, default: 'never' }) syncStatus!: SyncStatus;
  @Column('text', { nullable: true }) syncError!: string | null;
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) lastSyncedAt!: Date | null;
  /** The table holding the records; null until the first import or record write. Never shown to clients. */
  @Column('varchar', { length: 63, nullable: true }) recordsTable!: string | null;
}
