import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { AppException } from '@/common/errors/app.exception';
import { AgentsRepository } from '../agents.repository';

const isUniqueViolation = (err: unknown) =>
  err instanceof QueryFailedError && (err.driverError as { code?: string })?.code === '23505';

/**
 * Runs one write of one agent's collections in a transaction holding the agent's row lock, so defaults
 * (max + 1), limits and uniqueness hold under concurrency; 404 for an unknown agent.
 */
@Injectable()
export class AgentWriteLock {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly agents: AgentsRepository,
  ) {}

  async write<T>(workspaceId: string, agentId: string, fn: (m: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.dataSource.transaction(async (m) => {
        if (!(await this.agents.lock(workspaceId, agentId, m))) throw AppException.notFound('Agent');
        const out = await fn(m);
        await this.agents.touch(workspaceId, agentId, m);
        return out;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw AppException.conflict('A concurrent change conflicts with this one');
      throw err;
    }
  }
}
