import { Column, Entity } from 'typeorm';
import { AgentChildEntity } from './agent-child.entity';

/** A training example: what a customer says, the intent it expresses, the expected answer. */
@Entity('agent_training')
export class AgentTraining extends AgentChildEntity {
  @Column('text') content!: string;
  @Column('text', { nullable: true }) intent!: string | null;
  @Column('text', { nullable: true }) response!: string | null;
}
