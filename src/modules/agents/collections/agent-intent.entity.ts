import { Column, Entity } from 'typeorm';
import { AgentChildEntity } from './agent-child.entity';

export interface IntentWebhook {
  url: string;
  auth_token: string | null;
}

export interface IntentParameter {
  key: string;
  default: string | null;
  type: string;
  required: boolean;
}

@Entity('agent_intents')
export class AgentIntent extends AgentChildEntity {
  @Column('varchar', { length: 100 }) key!: string;
  @Column('varchar', { length: 200 }) name!: string;
  @Column('text', { nullable: true }) description!: string | null;
  @Column('text', { nullable: true }) recommendationActions!: string | null;
  @Column('real', { default: 0.5 }) confidenceThreshold!: number;
  @Column('boolean', { default: false }) isSystem!: boolean;
  @Column('boolean', { default: false }) intentLlmHandleByResponse!: boolean;
  @Column('jsonb', { nullable: true }) webhook!: IntentWebhook | null;
  @Column('jsonb', { default: () => `'[]'` }) parameters!: IntentParameter[];
}
