import { Column, Entity, Index } from 'typeorm';
import { BaseEntity } from '@/common/persistence/base.entity';

import type { WorkspacePolicies } from '@/common/auth/tenancy';
import type { WorkspaceId } from '@/common/auth/workspace-id';

export { EXPORT_POLICIES, type ExportPolicy, type WorkspacePolicies } from '@/common/auth/tenancy';

export const DEFAULT_POLICIES: WorkspacePolicies = { ANALYTICS_MESSAGES_EXPORT: 'raw' };

/** A tenant. Its slug is the first DNS label of its base address. */
@Entity('workspaces')
export class Workspace extends BaseEntity {
  /** The tenant's own id: the workspace id of every row it owns. */
  declare id: WorkspaceId;

  @Index({ unique: true })
  @Column('varchar', { length: 63 })
  slug!: string;

  @Column('varchar', { length: 200 })
  name!: string;

  @Column('jsonb', { default: () => `'${JSON.stringify(DEFAULT_POLICIES)}'` })
  policies!: WorkspacePolicies;

  /** Page origins (`https://shop.example`) allowed to open the workspace's web calls, besides the API's own. */
  @Column('jsonb', { default: () => `'[]'` })
  webCallOrigins!: string[];
}
