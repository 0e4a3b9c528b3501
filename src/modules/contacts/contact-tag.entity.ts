import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';

/** A label put on contacts; deleting it removes it from them. */
@Entity('contact_tags')
export class ContactTag extends WorkspaceOwnedEntity {
  @Column('varchar', { length: 100 }) name!: string;
  @Column('text', { nullable: true }) description!: string | null;
  @Column('char', { length: 7, nullable: true }) color!: string | null;
  @Column('boolean', { default: true }) isActive!: boolean;
}
