import { Column, Entity } from 'typeorm';
import { AgentChildEntity } from './agent-child.entity';

export type NoteKind = 'guideline' | 'note';

/** A guideline or a note of an agent (same shape: content and order). */
@Entity('agent_notes')
export class AgentNote extends AgentChildEntity {
  @Column('varchar', { length: 10 }) kind!: NoteKind;
  @Column('text') content!: string;
  @Column('integer') order!: number;
}
