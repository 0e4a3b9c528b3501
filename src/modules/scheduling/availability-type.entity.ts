import { Column, Entity } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';

/** A kind of meeting and how long it lasts; a schedule's appointments default to this length. */
@Entity('availability_types')
export class AvailabilityType extends WorkspaceOwnedEntity {
  @Column('varchar', { length: 200 }) name!: string;
  @Column('int') durationMinutes!: number;
}
