import { Column, Entity } from 'typeorm';
import { AgentChildEntity } from './agent-child.entity';

export interface ProcedureStep {
  order: number;
  description: string | null;
  /** The id of an intent of the same agent: the step becomes a tool call. */
  intent_uuid: string | null;
}

@Entity('agent_procedures')
export class AgentProcedure extends AgentChildEntity {
  @Column('varchar', { length: 200 }) name!: string;
  @Column('text', { nullable: true }) description!: string | null;
  @Column('jsonb', { default: () => `'[]'` }) steps!: ProcedureStep[];
}
