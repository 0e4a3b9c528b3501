import { Column, Index } from 'typeorm';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { BaseEntity } from './base.entity';

/** Every tenant-owned row: the base columns plus the workspace it belongs to. */
export abstract class WorkspaceOwnedEntity extends BaseEntity {
  @Index()
  @Column('uuid')
  workspaceId!: WorkspaceId;
}
