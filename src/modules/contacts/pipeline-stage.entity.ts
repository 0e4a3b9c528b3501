import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';

/** One column of the contact pipeline. */
@Entity('pipeline_stages')
export class PipelineStage extends WorkspaceOwnedEntity {
  @Column('varchar', { length: 100 }) name!: string;
  @Column('int') order!: number;
  @Column('char', { length: 7, nullable: true }) color!: string | null;
}
