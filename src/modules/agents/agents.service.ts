import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { Agent } from './agent.entity';
import { AgentsRepository } from './agents.repository';

/** Agents: the one owner of the agents table; other modules ask it whether an agent exists. */
@Injectable()
export class AgentsService {
  constructor(private readonly agents: AgentsRepository) {}

  /** The agent of this workspace, or 404 (the same answer for another workspace's agent). */
  async get(workspaceId: string, agentId: string): Promise<Agent> {
    const agent = await this.agents.findById(workspaceId, agentId);
    if (!agent) throw AppException.notFound('Agent');
    return agent;
  }

  exists(workspaceId: string, agentId: string): Promise<boolean> {
    return this.agents.exists(workspaceId, { id: agentId });
  }
}
