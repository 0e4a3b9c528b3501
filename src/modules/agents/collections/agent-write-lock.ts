import { Injectable } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { AppException } from '@/common/errors/app.exception';
import { Transaction, UnitOfWork } from '@/common/persistence/unit-of-work';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { AgentsRepository } from '../agents.repository';

const isUniqueViolation = (err: unknown) =>
  err instanceof QueryFailedError && (err.driverError as { code?: string })?.code === '23505';

/**
 * Runs one write of one agent's collections in a transaction holding the agent's row lock, so defaults
 * (max + 1), limits and uniqueness hold under concurrency; 404 for an unknown agent. The agents module's
 * collections and the events module's agent webhooks (their rotation) write through it.
 */
@Injectable()
export class AgentWriteLock {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly agents: AgentsRepository,
  ) {}

  async write<T>(workspaceId: WorkspaceId, agentId: string, fn: (tx: Transaction) => Promise<T>): Promise<T> {
    try {
      return await this.unitOfWork.run(async (tx) => {
        if (!(await this.agents.lock(workspaceId, agentId, tx))) throw AppException.notFound('Agent');
        const out = await fn(tx);
        await this.agents.touch(workspaceId, agentId, tx);
        return out;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw AppException.conflict('A concurrent change conflicts with this one');
      throw err;
    }
  }
}
