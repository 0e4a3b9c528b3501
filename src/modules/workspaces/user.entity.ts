import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';

export const USER_ROLES = ['admin', 'developer', 'member'] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** A person of a workspace; only admins and developers may create API tokens. */
@Entity('users')
export class User extends WorkspaceOwnedEntity {
  @Column('varchar', { length: 320 })
  email!: string;

  @Column('varchar', { length: 200 })
  name!: string;

  @Column('varchar', { length: 20 })
  role!: UserRole;
}
