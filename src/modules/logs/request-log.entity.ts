import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';

/** One answered API request of a workspace: no body, no headers; secret-like query values masked. */
@Entity('request_logs')
export class RequestLogEntry extends WorkspaceOwnedEntity {
  @Column('varchar', { length: 64 }) requestId!: string;
  @Column('varchar', { length: 10 }) method!: string;
  @Column('varchar', { length: 2048 }) path!: string;
  @Column('jsonb', { nullable: true }) query!: Record<string, unknown> | null;
  @Column('int') status!: number;
  @Column('int') durationMs!: number;
  @Column('varchar', { length: 64, nullable: true }) ip!: string | null;
  @Column('varchar', { length: 512, nullable: true }) userAgent!: string | null;
  @Column('uuid', { nullable: true }) tokenId!: string | null;
}
