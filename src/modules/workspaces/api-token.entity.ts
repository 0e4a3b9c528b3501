import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';

import type { TokenScope } from '@/common/auth/tenancy';

export { TOKEN_SCOPES, type TokenScope } from '@/common/auth/tenancy';

/** An API token. Only the SHA-256 of its value is stored; the value is shown once, at creation. */
@Entity('api_tokens')
export class ApiToken extends WorkspaceOwnedEntity {
  @Column('varchar', { length: 200 })
  name!: string;

  @Column('uuid')
  userId!: string;

  @Column('char', { length: 64 })
  tokenHash!: string;

  @Column('char', { length: 4 })
  lastFour!: string;

  @Column('text', { array: true })
  scopes!: TokenScope[];

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  lastUsedAt!: Date | null;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  revokedAt!: Date | null;
}
