import { Column } from 'typeorm';
import { WorkspaceOwnedEntity } from '@/common/persistence/workspace-owned.entity';

/** A row an agent holds (knowledge, webhook, rule); deleted with the agent. Insertion order is the `seq` column. */
export abstract class AgentChildEntity extends WorkspaceOwnedEntity {
  @Column('uuid') agentId!: string;
}
