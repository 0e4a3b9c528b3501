import { Column, Index } from 'typeorm';
import { BaseEntity } from './base.entity';

/** Every tenant-owned row: the base columns plus the workspace it belongs to. */
export abstract class WorkspaceOwnedEntity extends BaseEntity {
  @Index()
  @Column('uuid')
  workspaceId!: string;
}
